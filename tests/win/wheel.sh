# cdm.exe under Wine: NVIDIA's win_amd64 wheels install with the Windows layout (bin/,
# include/, lib/x64), checked against their RECORD, from the file or from a venv's
# Lib\site-packages; a conda environment as a folder; a Linux wheel is refused; global
# options before the command leave the heap whole (the arguments were freed twice).
. "$TESTS_DIR/win/lib.sh"
. "$TESTS_DIR/cli/lib_real_cudnn.sh"

PY=$(command -v python3) || { skip_tool "wheels" "no python3 to write wheels"; done_testing; exit; }
mkdir -p "$SCRATCH/wheels"
whl=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu13 9.14.0.64 --windows)
run_cdm install "$(wpath "$whl")" --json
expect_rc 0 "a win_amd64 wheel installs (no --platform: this is Windows)"
check "as 9.14.0.64-cuda13, from the wheel" \
  test "$(json 'd["id"], d["source"]')" = "('9.14.0.64-cuda13', 'wheel')"
check "its 8 DLLs in bin" test "$(ls "$CDM_ROOT_POSIX/9.14.0.64-cuda13/bin" | grep -c 'dll$')" -eq 8
check "and no Python package marker" test -z "$(find "$CDM_ROOT_POSIX/9.14.0.64-cuda13" -name '__init__.py')"
run_cdm verify
expect_rc 0 "verify passes"

# The same wheel as pip lays it out in a Windows venv's Lib\site-packages: a folder.
site=$SCRATCH/venv/Lib/site-packages
mkdir -p "$site"
"$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$site"
run_cdm install "$(wpath "$SCRATCH/venv")" --json
expect_rc 0 "the venv's folder is the same install"
check "nothing changed" test "$(json 'd["changed"]')" = False
rm -rf "$CDM_ROOT_POSIX"
run_cdm install "$(wpath "$SCRATCH/venv")" --json
expect_rc 0 "into an empty store, the venv's folder installs"
check "as 9.14.0.64-cuda13, from a folder" \
  test "$(json 'd["id"], d["source"]')" = "('9.14.0.64-cuda13', 'folder')"
check "with the Windows layout: its DLLs in bin" \
  test "$(ls "$CDM_ROOT_POSIX/9.14.0.64-cuda13/bin" | grep -c 'dll$')" -eq 8
run_cdm verify
expect_rc 0 "verify passes"

# NVIDIA's Debian packages are Linux's: this build reads no xz inside one, and says so.
if command -v dpkg-deb >/dev/null; then
  deb=$("$PY" "$TESTS_DIR/make_deb.py" "$SCRATCH/wheels" 9.14.0.64 13 runtime)
  run_cdm install "$(wpath "$deb")" --platform linux-x86_64
  expect_rc 1 "a Debian package is refused by the Windows build"
  expect_err "reads no xz inside a Debian package .*install the packages with cdm on Linux" \
    "saying what to do"
else
  skip_tool "a Debian package under Wine" "no dpkg-deb to build one"
fi

linux=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu12 9.1.0.70)
run_cdm install "$(wpath "$linux")"
expect_rc 1 "a manylinux wheel is refused on Windows"
expect_err "is for linux-x86_64 but this store is for windows-x86_64" "naming both platforms"

# A conda package: this build reads neither its bzip2 nor its zstd (no such library in
# the Windows build), and says what to do; the environment it went into installs as a
# folder (Library\bin, Library\include, Library\lib and conda-meta's record).
rm -rf "$CDM_ROOT_POSIX"
pkg=$("$PY" "$TESTS_DIR/make_conda.py" "$SCRATCH/wheels" 9.14.0.64 13 --windows)
run_cdm install "$(wpath "$pkg")"
expect_rc 1 "a conda .tar.bz2 is refused by the Windows build"
expect_err "reads no bzip2 .*install the conda environment it went into" "saying what to do"
env=$SCRATCH/envs/e
mkdir -p "$env/conda-meta"
"$PY" - "$pkg" "$env" <<'PY'
import bz2, io, json, sys, tarfile
t = tarfile.open(fileobj=io.BytesIO(bz2.decompress(open(sys.argv[1], "rb").read())))
info = json.load(t.extractfile("info/index.json"))
paths = json.load(t.extractfile("info/paths.json"))
for m in t.getmembers():
    if not m.name.startswith("info/"):
        t.extract(m, sys.argv[2])
info["paths_data"] = paths
json.dump(info, open(sys.argv[2] + "/conda-meta/cudnn-9.14.0.64-cuda13_0.json", "w"))
PY
run_cdm install "$(wpath "$env")" --json
expect_rc 0 "the conda environment installs as a folder"
check "as 9.14.0.64-cuda13 (conda-meta's version and cuda-version), its DLLs in bin" \
  test "$(json 'd["id"]')" = 9.14.0.64-cuda13 -a "$(ls "$CDM_ROOT_POSIX/9.14.0.64-cuda13/bin" | grep -c 'dll$')" -eq 6

# Global options before the command: each argument is freed once (WINEDEBUG=warn+heap
# reports a block freed twice).
WINEDEBUG=warn+heap "$WINE" "$CDM_EXE" --root "$CDM_ROOT" --json list >"$SCRATCH/out" 2>"$SCRATCH/heap"
check "--root and --json before the command: the list is printed" \
  grep -q '9.14.0.64-cuda13' "$SCRATCH/out"
check "and Wine's heap check reports nothing" sh -c '! grep -qi "heap" "$1"' _ "$SCRATCH/heap"

real=$(real_wheel win_amd64 2>"$SCRATCH/real.err")
if [ -z "$real" ]; then
  skip_tool "NVIDIA's real win_amd64 wheel installs" "$(tail -1 "$SCRATCH/real.err")"
else
  run_cdm --verbose install "$(wpath "$real")"
  expect_rc 0 "NVIDIA's real win_amd64 wheel installs"
  expect_err "wheel $(basename "$real"), sha256 " "--verbose names the wheel, unharmed by the options before it"
  dir=$CDM_ROOT_POSIX/9.1.0.70-cuda12
  check "its 8 DLLs in bin, import libraries in lib\\x64" \
    test "$(ls "$dir/bin" | grep -c 'dll$')" -eq 8 -a -f "$dir/lib/x64/cudnn.lib"
  run_cdm verify 9.1
  expect_rc 0 "and it verifies"
fi

done_testing
