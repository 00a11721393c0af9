# cdm attach / detach on a pip-style environment: a venv made by `python3 -m venv` holding
# a stand-in nvidia-cudnn-cu13 wheel (nvidia/cudnn/lib, its dist-info) and torch's METADATA
# pinning it; the round trip byte for byte, the version checks, and kill -9 at every step.
. "$TESTS_DIR/cli/lib.sh" || exit 1

# One interpreter for the whole test (python3 may be a version manager's slow shim).
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
python3() { "$PY" "$@"; }
if ! python3 -m venv --without-pip "$SCRATCH/probe" >/dev/null 2>&1; then
  skip "cdm attach on a Python virtual environment" "python3 -m venv is not available here"
  done_testing
  exit
fi

for spec in 9.19.0.56_cuda13 9.14.0.64_cuda13 9.21.0.10_cuda12 8.9.7.29_cuda12 9.20.0.48_cuda13; do
  run_cdm install "$(fixture "cudnn-linux-x86_64-${spec}-archive.tar.xz" --version "${spec%_*}")"
done
mkdir -p "$SCRATCH/p919" "$SCRATCH/p914" "$SCRATCH/p8" "$SCRATCH/p921"
run_cdm link "$SCRATCH/p919" 9.19
run_cdm link "$SCRATCH/p914" 9.14
run_cdm link "$SCRATCH/p8" 8.9
run_cdm link "$SCRATCH/p921" 9.21
P=$(cd "$SCRATCH/p919" && pwd -P)

# venv DIR: a virtual environment with the wheel's files, as pip lays them out
venv() {
  local v=$1
  python3 -m venv --without-pip "$v" || return 1
  local sp
  sp=$(echo "$v"/lib/python3*/site-packages)
  mkdir -p "$sp/nvidia/cudnn/lib" "$sp/nvidia/cudnn/include" \
    "$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info" "$sp/torch-2.11.0.dist-info"
  : >"$sp/nvidia/__init__.py"
  : >"$sp/nvidia/cudnn/__init__.py"
  local f
  for f in libcudnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9 libcudnn_cnn.so.9; do
    head -c 3000 /dev/urandom >"$sp/nvidia/cudnn/lib/$f"
  done
  chmod 755 "$sp/nvidia/cudnn/lib/libcudnn.so.9"
  ln -s libcudnn.so.9 "$sp/nvidia/cudnn/lib/libcudnn.so"
  printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' \
    >"$sp/nvidia/cudnn/include/cudnn_version.h"
  printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n' \
    >"$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA"
  (cd "$sp" && find nvidia -type f | sed 's/$/,,/') >"$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD"
  printf '%s\n' 'Metadata-Version: 2.4' 'Name: torch' 'Version: 2.11.0' \
    'Requires-Dist: filelock' \
    'Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == "Linux"' \
    'Requires-Dist: nvidia-cublas==13.0.0.19; platform_system == "Linux"' '' \
    'Requires-Dist: nvidia-cudnn-cu13==1.0 (a line of the description, not a header)' \
    >"$sp/torch-2.11.0.dist-info/METADATA"
  printf '%s\n' "$sp"
}
# digest DIR: every entry's type, path, size or link target, mode, and each file's SHA-256
digest() {
  (cd "$1" && find . -printf '%y %p %s %l %m\n' | sort &&
    find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

V=$SCRATCH/env
SP=$(venv "$V")
WHEEL=$SP/nvidia/cudnn/lib
before=$(digest "$V")

# ---- attach ---------------------------------------------------------------------------------
run_cdm attach "$V" "$P" --json
expect_rc 0 "attach a venv to a project linked to 9.19.0.56 (torch pins 9.19.0.56)"
check "--json has venv, folder, target, original, changed" \
  test "$(json 'sorted(k for k in ("venv", "folder", "target", "original", "changed") if k in d), d["changed"]')" = "(['changed', 'folder', 'original', 'target', 'venv'], True)"
check "the wheel's lib folder stays a real folder" sh -c 'test -d "$1" && ! test -L "$1"' _ "$WHEEL"
check "each of its cuDNN files is a link to the project's file of that name" \
  test "$(for f in libcudnn.so.9 libcudnn_cnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9; do readlink "$WHEEL/$f"; done)" = \
  "$(for f in libcudnn.so.9 libcudnn_cnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9; do echo "$P/cuda_link/lib/$f"; done)"
check "the wheel's own chain link is left as it was" test "$(readlink "$WHEEL/libcudnn.so")" = libcudnn.so.9
check "--json counts the files linked" test "$(json 'd["files"]')" = 4
check "so its libcudnn.so.9 is the store's" \
  test "$(realpath "$WHEEL/libcudnn.so.9")" = "$(realpath "$CDM_ROOT/9.19.0.56-cuda13/lib/libcudnn.so.9")"
original=$(json 'd["original"]')
check "the wheel's files were kept beside the user's state" \
  sh -c 'case "$1" in "$2"/.attached/*) test -f "$1/libcudnn_graph.so.9";; *) false;; esac' _ "$original" "$(dirname "$STATE_DB")"
check "the framework and its pin are reported" \
  test "$(json 'd["framework"], d["requirement"].split(";")[0], d["wheel"]')" = "('torch 2.11.0', 'nvidia-cudnn-cu13==9.19.0.56', 'nvidia_cudnn_cu13 9.19.0.56')"
run_cdm attach "$V" "$P" --json
expect_rc 0 "attaching again to the same project"
check "changes nothing" test "$(json 'd["changed"]')" = False
run_cdm link "$P" 9.20
expect_rc 0 "a switch to 9.20, which torch built with 9.19 accepts"
check "a later cdm link of the project applies to the environment" \
  test "$(realpath "$WHEEL/libcudnn.so.9")" = "$(realpath "$CDM_ROOT/9.20.0.48-cuda13/lib/libcudnn.so.9")"
run_cdm rollback "$P"
check "and so does a rollback" \
  test "$(realpath "$WHEEL/libcudnn.so.9")" = "$(realpath "$CDM_ROOT/9.19.0.56-cuda13/lib/libcudnn.so.9")"

# ---- switches that the attached framework would refuse ---------------------------------------
run_cdm link "$P" 9.14
expect_rc 1 "a switch to 9.14 is refused: torch in the attached environment was built with 9.19"
expect_err "cannot switch '$P' to 9.14.0.64-cuda13: the Python environment '$V' follows it and torch 2.11.0 was built with cuDNN 9.19 and 9.14.0.64-cuda13 is older .*--force" \
  "naming the environment, the framework, the rule and --force"
check "the project still links 9.19" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/9.19.0.56-cuda13"
run_cdm link "$P" 9.21 --cuda 12
expect_rc 1 "a switch to a CUDA 12 build is refused for the cu13 wheel"
expect_err "CUDA 13 build of cuDNN and 9.21.0.10-cuda12 is built for CUDA 12" "naming both CUDA majors"
run_cdm link "$P" 9.14 --force
expect_rc 0 "--force switches all the same"
expect_err "warning: switching anyway \(--force\), though '$V' follows it: torch 2.11.0 was built with cuDNN 9.19" "with a warning naming the environment"
check "and the environment follows" \
  test "$(realpath "$WHEEL/libcudnn.so.9")" = "$(realpath "$CDM_ROOT/9.14.0.64-cuda13/lib/libcudnn.so.9")"
run_cdm rollback "$P"
expect_rc 0 "rollback to 9.19"
check "returns both the project and the environment" \
  test "$(realpath "$WHEEL/libcudnn.so.9")" = "$(realpath "$CDM_ROOT/9.19.0.56-cuda13/lib/libcudnn.so.9")"
run_cdm rollback "$P"
expect_rc 1 "rolling back again, to 9.14, is refused the same way"
expect_err "9.14.0.64-cuda13 is older" "naming the rule"
run_cdm rollback "$P" --force
expect_rc 0 "and --force rolls back"
run_cdm link "$P" 9.19
expect_rc 0 "back to 9.19"
run_cdm attach "$V" "$SCRATCH/p921"
expect_rc 1 "attaching to another project while attached"
expect_err "attached to the project '$P'; run 'cdm detach" "says to which and what to do"

run_cdm unlink "$P"
expect_rc 0 "unlink of a project with an environment attached"
expect_err "warning: '$V' is attached to '$P': its cuDNN links lead nowhere while the project is unlinked; 'cdm detach $V'" \
  "warns, naming the environment and what to do"
run_cdm link "$P" 9.19

# ---- detach ---------------------------------------------------------------------------------
run_cdm detach "$V" --json
expect_rc 0 "detach"
check "--json says it changed" test "$(json 'd["changed"], d["folder"]')" = "(True, '$WHEEL')"
check "the environment is back byte for byte" test "$(digest "$V")" = "$before"
check "nothing is left in .attached beside the user's state" test -z "$(ls -A "$(dirname "$STATE_DB")/.attached")"
check "nor anything named .attached in the store" test ! -e "$CDM_ROOT/.attached"
run_cdm detach "$V" --json
expect_rc 0 "detaching a detached environment"
check "changes nothing" test "$(json 'd["changed"]')" = False

# ---- what the framework accepts ----------------------------------------------------------------
run_cdm attach "$V" "$SCRATCH/p914"
expect_rc 1 "9.14 is refused for torch built with 9.19"
expect_err "torch 2.11.0 was built with cuDNN 9.19 and 9.14.0.64-cuda13 is older .*nvidia-cudnn-cu13==9.19.0.56.*--force" \
  "naming the framework, its pin and --force"
check "and the environment is untouched" test "$(digest "$V")" = "$before"
run_cdm attach "$V" "$SCRATCH/p8"
expect_rc 1 "cuDNN 8 is refused for torch built with 9.19"
expect_err "cuDNN 8, another major" "as another major"
run_cdm attach "$V" "$SCRATCH/p921"
expect_rc 1 "a cuda12 build is refused for the cu13 wheel torch pins"
expect_err "CUDA 13 build of cuDNN and 9.21.0.10-cuda12 is built for CUDA 12" "naming both CUDA majors"
run_cdm attach "$V" "$SCRATCH/p914" --force --json
expect_rc 0 "--force attaches it all the same"
check "and --json says what was overridden" sh -c 'printf "%s" "$1" | grep -q "is older"' _ "$(json 'd["forced"]')"
run_cdm detach "$V"
check "detach after a forced attach restores it" test "$(digest "$V")" = "$before"
mv "$SP/torch-2.11.0.dist-info" "$SCRATCH/torch-dist-info"
run_cdm attach "$V" "$SCRATCH/p914"
expect_rc 1 "without a framework, the wheel's own version is the reference"
expect_err "the wheel nvidia_cudnn_cu13 is cuDNN 9.19" "and is named"
mv "$SCRATCH/torch-dist-info" "$SP/torch-2.11.0.dist-info"

# ---- bad environments ------------------------------------------------------------------------
mkdir -p "$SCRATCH/notenv"
run_cdm attach "$SCRATCH/notenv" "$P"
expect_rc 1 "a folder that is no environment"
expect_err "is not a Python environment" "is refused, saying so"
python3 -m venv --without-pip "$SCRATCH/nowheel"
run_cdm attach "$SCRATCH/nowheel" "$P"
expect_rc 1 "an environment without the cuDNN wheel"
expect_err "has no cuDNN wheel folder .*nvidia-cudnn-cu12" "is refused, saying what to install"
run_cdm attach "$SCRATCH/nope" "$P"
expect_rc 1 "a folder that is not there"

# ---- a conda environment: its cudnn package's sonames in lib ----------------------------------
C=$SCRATCH/conda
mkdir -p "$C/conda-meta" "$C/lib/python3.11/site-packages" "$C/include"
for part in "" _adv _cnn _engines_precompiled _engines_runtime_compiled _graph _heuristic _ops; do
  head -c 2000 /dev/urandom >"$C/lib/libcudnn$part.so.9.19.0"
  ln -s "libcudnn$part.so.9.19.0" "$C/lib/libcudnn$part.so.9"
  ln -s "libcudnn$part.so.9" "$C/lib/libcudnn$part.so"
done
head -c 500 /dev/urandom >"$C/lib/libz.so.1"
printf '{"name": "cudnn", "version": "9.19.0.56", "files": ["lib/libcudnn.so.9.19.0"]}\n' \
  >"$C/conda-meta/cudnn-9.19.0.56-h2b2e6d4_0.json"
conda_before=$(digest "$C")
run_cdm attach "$C" "$P" --json
expect_rc 0 "attach a conda environment (conda-meta/cudnn-*.json)"
check "its soname links lead to the project's files" \
  test "$(readlink "$C/lib/libcudnn_ops.so.9")" = "$P/cuda_link/lib/libcudnn_ops.so.9"
check "all 8 of them" test "$(json 'd["files"]')" = 8
check "the package's versioned files and other libraries stay" \
  sh -c 'test -f "$1/lib/libcudnn.so.9.19.0" && test "$(readlink "$1/lib/libcudnn.so")" = libcudnn.so.9 && test -f "$1/lib/libz.so.1"' _ "$C"
check "the package is named as the wheel" test "$(json 'd["wheel"]')" = "cudnn 9.19.0.56"
run_cdm detach "$C"
expect_rc 0 "detach the conda environment"
check "it is back byte for byte" test "$(digest "$C")" = "$conda_before"
run_cdm attach "$C" "$SCRATCH/p914"
expect_rc 1 "the conda package's own version is the reference: 9.14 is refused for cudnn 9.19"
expect_err "the conda package cudnn is cuDNN 9.19 and 9.14.0.64-cuda13 is older" "naming the package"
check "and the environment is untouched" test "$(digest "$C")" = "$conda_before"

# ---- links where cdm expects the environment's own folders, or its own ----------------------
V3=$SCRATCH/env3
SP3=$(venv "$V3")
mv "$SP3/nvidia/cudnn" "$SCRATCH/outside-cudnn"
ln -s "$SCRATCH/outside-cudnn" "$SP3/nvidia/cudnn"
outside_before=$(digest "$SCRATCH/outside-cudnn")
run_cdm attach "$V3" "$P"
expect_rc 1 "a wheel folder that leads out of the environment (nvidia/cudnn a link)"
expect_err "leads out of the environment" "is refused, saying so"
check "and the folder it leads to is untouched" test "$(digest "$SCRATCH/outside-cudnn")" = "$outside_before"
rm "$SP3/nvidia/cudnn"
mkdir -p "$SP3/nvidia/cudnn"
: >"$SP3/nvidia/cudnn/lib"
run_cdm attach "$V3" "$P"
expect_rc 1 "a wheel 'lib' that is a plain file"
expect_err "is not a folder" "is refused, naming it"
run_cdm detach "$V3"
expect_rc 0 "and detach has nothing to undo there"
rm -rf "$V3"
SP3=$(venv "$V3")
before3=$(digest "$V3")
kept_base=$(dirname "$STATE_DB")/.attached
rm -rf "$kept_base" && mkdir -p "$SCRATCH/outside-kept" && ln -s "$SCRATCH/outside-kept" "$kept_base"
run_cdm attach "$V3" "$P"
expect_rc 1 "a .attached beside the state that is a link"
expect_err "\.attached': it is not a folder \(a link\?\)" "is refused, naming it"
check "nothing was written where it leads" test -z "$(ls -A "$SCRATCH/outside-kept")"
check "and the environment is untouched" test "$(digest "$V3")" = "$before3"
rm "$kept_base"

# ---- kill -9 at every step -------------------------------------------------------------------
attached_ok() { test "$(readlink "$WHEEL/libcudnn.so.9")" = "$P/cuda_link/lib/libcudnn.so.9" && "$CDM" detach "$V" >/dev/null 2>&1; }
for point in attach-recorded attach-moved attach-linked attach-done; do
  CDM_CRASH_AT=$point "$CDM" attach "$V" "$P" >/dev/null 2>&1
  rc=$?
  check "attach killed at $point (status $rc)" test "$rc" -ne 0
  run_cdm gc
  expect_rc 0 "the next command repairs it ($point)"
  if [ -L "$WHEEL/libcudnn.so.9" ]; then
    check "killed at $point: the attach is finished, and detach works" attached_ok
  else
    check "killed at $point: the attach is undone" test -d "$WHEEL"
  fi
  check "after $point the environment is as it was" test "$(digest "$V")" = "$before"
  check "after $point nothing waits in the index" \
    test -z "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT id FROM attachments WHERE state IN (\"attaching\", \"detaching\")").fetchall() or "")' "$STATE_DB")"
done
for point in detach-recorded detach-unlinked detach-moved; do
  "$CDM" attach "$V" "$P" >/dev/null 2>&1
  CDM_CRASH_AT=$point "$CDM" detach "$V" >/dev/null 2>&1
  rc=$?
  check "detach killed at $point (status $rc)" test "$rc" -ne 0
  run_cdm detach "$V"
  expect_rc 0 "the next detach repairs and finishes it ($point)"
  check "after $point the environment is back byte for byte" test "$(digest "$V")" = "$before"
done

# ---- the store on another file system -----------------------------------------------------------
other=/dev/shm
if [ -d "$other" ] && [ -w "$other" ] && [ "$(stat -c %d "$other")" != "$(stat -c %d "$CDM_ROOT")" ]; then
  V2=$(mktemp -d "$other/cdm-attach.XXXXXX")
  SP2=$(venv "$V2/env")
  before2=$(digest "$V2/env")
  run_cdm attach "$V2/env" "$P" --json
  expect_rc 0 "attach an environment on another file system than the store"
  check "the wheel's files are kept beside its folder" \
    test "$(json 'd["original"]')" = "$SP2/nvidia/cudnn/.lib.cdm-original-$(json 'd["original"].rsplit("-", 1)[1]')"
  run_cdm detach "$V2/env"
  check "and comes back byte for byte" test "$(digest "$V2/env")" = "$before2"
  rm -rf "$V2"
else
  skip "attach across file systems" "no writable /dev/shm on another file system than $CDM_ROOT"
fi

# Detach with the kept folder made a link, or gone while cdm's links are still there: refused,
# changing nothing (a restore would follow the link and move its files in; or drop the record
# and leave cdm's links).
"$CDM" attach "$V" "$P" >/dev/null 2>&1
orig=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT original FROM attachments WHERE state = ? ORDER BY id DESC", ("attached",)).fetchone()[0])' "$STATE_DB")
attached=$(digest "$V")
mkdir -p "$SCRATCH/elsewhere" && echo mine >"$SCRATCH/elsewhere/libcudnn.so.9"
mv "$orig" "$orig.real" && ln -s "$SCRATCH/elsewhere" "$orig"
run_cdm detach "$V"
expect_rc 1 "detach with the kept folder made a link fails"
expect_err "is not a folder now \(a link\?\); cdm does not follow it and changed nothing" "saying so"
check "the environment is as it was, attached" test "$(digest "$V")" = "$attached"
check "and nothing was taken from where the link leads" test "$(cat "$SCRATCH/elsewhere/libcudnn.so.9")" = mine
rm "$orig" && mv "$orig.real" "$orig.gone"
run_cdm detach "$V"
expect_rc 1 "detach with the kept folder gone and cdm's links still there fails"
expect_err "the wheel's own files that cdm kept in '.*' are gone, and [0-9]+ of cdm's links are still in" "saying so, and what to do"
check "the environment is still as it was" test "$(digest "$V")" = "$attached"
mv "$orig.gone" "$orig"
run_cdm detach "$V"
expect_rc 0 "with the kept folder back, detach works"
check "and the environment is back byte for byte" test "$(digest "$V")" = "$before"

# A record whose path is longer than cdm's field is refused, never cut: a path cut short
# would name another folder, which recovery would then move files into.
long=$SCRATCH/$(printf 'x%.0s' $(seq 1 4200))
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("INSERT INTO attachments (venv, folder, project, target, original, install_id, wheel, time, state) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)", (sys.argv[2], sys.argv[2] + "/f", "/p", "/t", "/o", "9.1.0.70-cuda12", "w", "attaching")); db.commit()' "$STATE_DB" "$long"
run_cdm link "$SCRATCH/longpath-project" 9.1
check "a command that would settle it fails" test "$RC" -ne 0
expect_err "has a value too long for cdm" "saying the record holds a value too long"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("DELETE FROM attachments WHERE state = ?", ("attaching",)); db.commit()' "$STATE_DB"

done_testing
