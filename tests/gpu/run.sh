#!/usr/bin/env bash
# cdm on a GPU machine with PyTorch (CI has no GPU and does not run this):
#   tests/gpu/run.sh CDM WORK_DIR
# CDM's folder must hold cdm-audit.so (a build tree, or set CDM_AUDIT_LIBRARY).
#
# 1. Packs the cuDNN that the machine's PyTorch ships (the nvidia-cudnn wheel) into a
#    layout-C archive, installs it, links a project, activates it, runs `cdm doctor` (which
#    must see cudnnCreate succeed) and a C program doing one convolution through the link.
# 2. What PyTorch really loads (issue 10): (a) `cdm doctor -- python3 conv.py` with the
#    project activated reports the mix of the wheel's libcudnn.so.9 (torch's RPATH) and the
#    store's sub-libraries (LD_LIBRARY_PATH) and exits 1; (b) a copy of the PyTorch
#    environment (a venv made with --system-site-packages whose site-packages links to
#    PyTorch's, with a copy of the nvidia/cudnn wheel folder) is attached with `cdm attach`,
#    and the convolution then takes every cuDNN library from the store; (b2) pip
#    force-reinstalls the wheel (packed from the installed files) over the attached copy: the
#    store still verifies, attach takes the reinstalled files, and the convolution again
#    takes every cuDNN library from the store; (c) `cdm detach`
#    brings the wheel's copy back byte for byte. Then the same with the machine's second
#    cuDNN (9.14, Debian-style packages in /usr/lib/x86_64-linux-gnu) installed too: the
#    doctor names the 9.14/9.19 mix, and `cdm attach` refuses 9.14 for a PyTorch built with
#    9.19 unless --force.
# Every step prints what it ran; the script exits 1 at the first check that does not hold.
set -uo pipefail
cdm=${1:?usage: run.sh CDM WORK_DIR}
work=${2:?usage: run.sh CDM WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
tests=$(dirname "$here")
cdm=$(cd "$(dirname "$cdm")" && pwd)/$(basename "$cdm")
fail() { echo "gpu: FAILED: $*" >&2; exit 1; }
section() { printf '\n==== %s\n' "$*"; }
# show CMD...: print the command line, then run it
show() { printf '$ %s\n' "$*"; "$@"; }
mkdir -p "$work"
work=$(cd "$work" && pwd -P)
PY=$(python3 -c 'import sys; print(sys.executable)') || fail "no python3"
# conv.py, or (for a dry run of this script without a GPU) GPU_CONV
conv=${GPU_CONV:-$here/conv.py}

wheel=$(python3 -c 'import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__) if nvidia.cudnn.__file__ else list(nvidia.cudnn.__path__)[0])') ||
  fail "no PyTorch cuDNN wheel (nvidia.cudnn) here"
base_sp=$(cd "$wheel/../.." && pwd)
python3 -c 'import torch; print("torch", torch.__version__, "cuDNN", torch.backends.cudnn.version(), "GPU", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)'
# pack_real_cudnn.sh wants a CUDA-style root; the wheel's dist-info gives the build number.
root=$work/wheel-root
mkdir -p "$root/dist-info"
ln -sfn "$wheel/include" "$root/include"
ln -sfn "$wheel/lib" "$root/lib"
for d in "$base_sp"/nvidia_cudnn_cu*.dist-info; do ln -sfn "$d" "$root/dist-info/"; done
start=$(date +%s%N)
archive=$("$tests/pack_real_cudnn.sh" "$work/archives" --full --cuda-root "$root") || fail "packing failed"
echo "packed $(basename "$archive") ($(du -h "$archive" | cut -f1)) in $(( ($(date +%s%N) - start) / 1000000 )) ms"

export CDM_ROOT=$work/store
start=$(date +%s%N)
"$cdm" install "$archive" || fail "install failed"
echo "installed in $(( ($(date +%s%N) - start) / 1000000 )) ms"
id=$(basename "$archive" .tar.xz | sed 's/^cudnn-linux-[^-]*-\([0-9.]*\)_cuda\([0-9]*\)-archive$/\1-cuda\2/')
proj=$work/project
mkdir -p "$proj"
"$cdm" link "$proj" "$id" || fail "link failed"
cd "$proj" || fail "cd failed"
eval "$("$cdm" activate --shell bash)" || fail "activate failed"
echo "activated: CDM_ACTIVE=$CDM_ACTIVE LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

"$cdm" verify "$id" || fail "verify failed"
"$cdm" doctor
doctor_rc=$?
"$cdm" doctor --json >"$work/doctor.json"
python3 - "$work/doctor.json" <<'PY' || [ -n "${GPU_CONV:-}" ] || fail "doctor did not report cudnnCreate succeeding"
import json, sys
d = json.load(open(sys.argv[1]))
h = [c for c in d["checks"] if c["name"] == "library.handle"][0]
print("doctor ok:", d["ok"], "| library.handle:", h["status"], "-", h["detail"])
sys.exit(0 if h["status"] == "ok" and "CUDNN_STATUS_SUCCESS" in h["detail"] else 1)
PY
echo "doctor exit status: $doctor_rc"

if [ -z "${GPU_CONV:-}" ]; then
  cuda=${CUDA_TOOLKIT:-/usr/local/cuda}
  cc -O2 -o "$work/conv" "$here/conv.c" -I "$proj/cuda_link/include" -I "$cuda/include" \
    -L "$proj/cuda_link/lib" -l:libcudnn.so.9 -L "$cuda/lib64" -lcudart -ldl || fail "conv.c did not build"
  "$work/conv" || fail "the convolution failed"
fi

# query FILE EXPR: a Python expression over the doctor document d in FILE, printed
query() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# summary FILE: the loaded cuDNN libraries and the run checks of a doctor document
summary() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("command:", " ".join(d["command"]["argv"]), "-> exit", d["command"]["exit"])
for l in d["loaded"]:
    print("  %-8s %s\n           real %s\n           %s %s\n           why: %s" % (
        l["kind"], l["path"], l["real_path"], l["version"], l["install"] or "outside the store", l["why"]))
for c in d["checks"]:
    if c["name"].startswith(("run.", "python")):
        print("%-5s %s: %s" % (c["status"], c["name"], c["detail"]))
PY
}
# cudnn_sources FILE: "install-or-folder version" of each loaded cuDNN library, one a line
cudnn_sources() { query "$1" '"\n".join(sorted(set("%s %s" % (l["install"] or l["folder"], l["version"]) for l in d["loaded"] if l["kind"] == "cudnn")))'; }
# digest DIR: types, names, sizes and SHA-256 of everything below DIR
digest() { (cd "$1" && find . -printf '%y %p %s %l %m\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

section "(a) the project activated, PyTorch run as it is: its wheel's libcudnn.so.9 and the store's sub-libraries"
show "$cdm" doctor -- python3 "$conv"
echo "(doctor exit status $?)"
"$cdm" doctor --json -- python3 "$conv" >"$work/a.json"
rc=$?
summary "$work/a.json"
[ "$rc" = 1 ] || fail "(a) doctor -- python3 exited $rc, not 1"
[ "$(query "$work/a.json" '[c["status"] for c in d["checks"] if c["name"] == "run.cudnn"][0]')" = fail ] ||
  fail "(a) run.cudnn did not fail"
detail=$(query "$work/a.json" '[c["detail"] for c in d["checks"] if c["name"] == "run.cudnn"][0]')
case $detail in *"$(realpath "$wheel/lib")"*"$CDM_ROOT/$id/lib"* | *"$CDM_ROOT/$id/lib"*"$(realpath "$wheel/lib")"*) ;;
  *) fail "(a) run.cudnn does not name both the wheel's and the store's folder: $detail" ;; esac
echo "gpu: (a) holds: exit 1, both folders named"

section "(e) cdm exec, nothing attached: every cuDNN library of PyTorch and JAX from the store"
for fw in torch jax; do
  python3 -c "import $fw" 2>/dev/null || { echo "gpu: SKIP (e) $fw: not here"; continue; }
  show "$cdm" exec "$proj" -- python3 "$here/conv_maps.py" "$fw" | tee "$work/e-$fw.txt" ||
    fail "(e) cdm exec of the $fw convolution failed"
  maps=$(sed -n 's/^map //p' "$work/e-$fw.txt")
  [ -n "$maps" ] || fail "(e) $fw mapped no cuDNN library"
  printf '%s\n' "$maps" | grep -v "^$(realpath "$CDM_ROOT/$id")/" && fail "(e) $fw mapped cuDNN from outside the store"
  echo "gpu: (e) holds for $fw: $(printf '%s\n' "$maps" | wc -l) cuDNN libraries mapped, all from the store's $id"
done
start=$(date +%s%N)
for _ in $(seq 200); do /bin/true; done
t_true=$(( ($(date +%s%N) - start) / 200000 ))
start=$(date +%s%N)
for _ in $(seq 200); do "$cdm" exec "$proj" -- /bin/true; done
t_exec=$(( ($(date +%s%N) - start) / 200000 ))
start=$(date +%s%N)
for _ in $(seq 200); do "$cdm" exec --no-redirect "$proj" -- /bin/true; done
t_plain=$(( ($(date +%s%N) - start) / 200000 ))
echo "gpu: a start of /bin/true: ${t_true} us; through cdm exec: ${t_exec} us; cdm exec --no-redirect: ${t_plain} us"

section "(b) a copy of the PyTorch environment, attached to the project"
V=$work/venv
show "$PY" -m venv --system-site-packages --without-pip "$V" || fail "python3 -m venv failed"
VSP=$(echo "$V"/lib/python3*/site-packages)
# Everything of PyTorch's site-packages by link, but torch/ and torch/lib/ are folders of
# links (so that libtorch_cuda.so's $ORIGIN/../../nvidia/cudnn/lib stays in the copy) and
# nvidia/cudnn is a real copy of the wheel's folder.
for e in "$base_sp"/* "$base_sp"/.[!.]*; do
  [ -e "$e" ] || continue
  case $(basename "$e") in torch | nvidia) ;; nvidia_cudnn_cu*.dist-info) cp -a "$e" "$VSP/" ;; *) ln -s "$e" "$VSP/" ;; esac
done
mkdir -p "$VSP/torch/lib" "$VSP/nvidia"
for e in "$base_sp"/torch/*; do [ "$(basename "$e")" = lib ] || ln -s "$e" "$VSP/torch/"; done
for e in "$base_sp"/torch/lib/*; do ln -s "$e" "$VSP/torch/lib/"; done
for e in "$base_sp"/nvidia/*; do [ "$(basename "$e")" = cudnn ] || ln -s "$e" "$VSP/nvidia/"; done
cp -a "$base_sp/nvidia/cudnn" "$VSP/nvidia/cudnn"
"$V/bin/python3" -c 'import torch; print("the copy imports torch from", torch.__file__)'
before=$(digest "$VSP/nvidia/cudnn")
show "$cdm" attach "$V" "$proj" || fail "(b) cdm attach failed"
ls -l "$VSP/nvidia/cudnn"
show "$cdm" doctor -- "$V/bin/python3" "$conv"
echo "(doctor exit status $?)"
"$cdm" doctor --json -- "$V/bin/python3" "$conv" >"$work/b.json"
summary "$work/b.json"
[ "$(query "$work/b.json" 'd["command"]["exit"]')" = 0 ] || fail "(b) the convolution failed"
[ "$(cudnn_sources "$work/b.json" | cut -d' ' -f1 | sort -u)" = "$id" ] ||
  fail "(b) not every cuDNN library came from the store's $id: $(cudnn_sources "$work/b.json")"
[ "$(query "$work/b.json" '[c["status"] for c in d["checks"] if c["name"] == "run.cudnn"][0]')" = ok ] ||
  fail "(b) run.cudnn is not ok"
echo "gpu: (b) holds: the convolution ran with every cuDNN library from the store's $id"

section "(b2) pip install --force-reinstall of the attached cuDNN wheel: the store stays as installed"
cudnn_dist=$(basename "$(ls -d "$base_sp"/nvidia_cudnn_cu*.dist-info | head -1)" | sed 's/-[0-9].*//')
whl=$("$PY" "$here/wheel_of_installed.py" "$base_sp" "$cudnn_dist" "$work") || fail "(b2) cannot pack the installed wheel"
echo "packed $(basename "$whl") ($(du -h "$whl" | cut -f1)) from the installed files"
show "$V/bin/python3" -m pip install --quiet --no-index --no-deps --no-compile --force-reinstall "$whl" ||
  fail "(b2) pip install --force-reinstall failed"
find "$VSP/nvidia/cudnn/lib" -name 'libcudnn*' -type l | grep -q . && fail "(b2) pip left cdm's links"
show "$cdm" verify "$id" || fail "(b2) the store is not as installed after pip"
show "$cdm" doctor "$proj" | grep -E "python.attached" || true
show "$cdm" attach "$V" "$proj" || fail "(b2) attaching again failed"
"$cdm" doctor --json -- "$V/bin/python3" "$conv" >"$work/b2.json"
summary "$work/b2.json"
[ "$(query "$work/b2.json" 'd["command"]["exit"]')" = 0 ] || fail "(b2) the convolution failed"
[ "$(cudnn_sources "$work/b2.json" | cut -d' ' -f1 | sort -u)" = "$id" ] ||
  fail "(b2) not every cuDNN library came from the store's $id: $(cudnn_sources "$work/b2.json")"
echo "gpu: (b2) holds: after pip's reinstall the store verified, the environment attached again, and the convolution took every cuDNN library from the store"

section "(c) detach: the wheel's own folder comes back"
show "$cdm" detach "$V" || fail "(c) cdm detach failed"
[ "$(digest "$VSP/nvidia/cudnn")" = "$before" ] || fail "(c) the wheel's folder is not back byte for byte"
echo "gpu: the wheel's folder is back byte for byte ($(find "$VSP/nvidia/cudnn" -type f | wc -l) files)"
"$cdm" doctor --json -- "$V/bin/python3" "$conv" >"$work/c.json"
summary "$work/c.json"
front=$(query "$work/c.json" '[l["real_path"] for l in d["loaded"] if l["path"].endswith("/libcudnn.so.9")][0]')
[ "$front" = "$VSP/nvidia/cudnn/lib/libcudnn.so.9" ] || fail "(c) libcudnn.so.9 came from $front, not the wheel's copy"
echo "gpu: (c) holds: libcudnn.so.9 is the wheel's copy again"

section "the machine's cuDNN 9.14 as a second installed version"
# (GPU_SECOND_LIB and GPU_SECOND_INCLUDE point elsewhere for a dry run)
pkg=${GPU_SECOND_LIB:-/usr/lib/x86_64-linux-gnu}
pkg_include=${GPU_SECOND_INCLUDE:-/usr/include/x86_64-linux-gnu}
if ! ls "$pkg"/libcudnn.so.9.14* >/dev/null 2>&1; then
  echo "gpu: SKIP the 9.14 steps: no $pkg/libcudnn.so.9.14*"
  exit 0
fi
r914=$work/root914
mkdir -p "$r914/include" "$r914/lib"
# the real files by their full names, and the soname links, as NVIDIA's archives have them
# (9.14's libcudnn.so.9 asks for libcudnn_graph.so.9.14.0 before libcudnn_graph.so.9)
for f in "$pkg"/libcudnn*.so.9; do
  real=$(readlink -f "$f")
  cp "$real" "$r914/lib/"
  [ "$(basename "$real")" = "$(basename "$f")" ] || ln -sfn "$(basename "$real")" "$r914/lib/$(basename "$f")"
done
for h in "$pkg_include"/cudnn*.h; do cp -L "$h" "$r914/include/"; done
[ -f "$r914/include/cudnn_version.h" ] || cp -L "$r914/include/cudnn_version_v9.h" "$r914/include/cudnn_version.h"
build=$(dpkg-query -W -f='${Version}' libcudnn9-cuda-13 2>/dev/null | sed -n 's/^9\.14\.[0-9]*\.\([0-9]*\).*/\1/p')
archive914=$("$tests/pack_real_cudnn.sh" "$work/archives" --full --cuda-root "$r914" --build "${build:-64}" --cuda 13) ||
  fail "packing 9.14 failed"
show "$cdm" install "$archive914" || fail "installing 9.14 failed"
id914=$(basename "$archive914" .tar.xz | sed 's/^cudnn-linux-[^-]*-\([0-9.]*\)_cuda\([0-9]*\)-archive$/\1-cuda\2/')
p914=$work/project914
mkdir -p "$p914"
show "$cdm" link "$p914" "$id914" || fail "link 9.14 failed"
show "$cdm" doctor "$p914" -- python3 "$conv"
echo "(doctor exit status $?)"
"$cdm" doctor --json "$p914" -- python3 "$conv" >"$work/d.json"
rc=$?
summary "$work/d.json"
[ "$rc" = 1 ] || fail "(9.14) doctor exited $rc, not 1"
versions=$(query "$work/d.json" '" ".join(sorted(set(".".join(l["version"].split(".")[:2]) for l in d["loaded"] if l["kind"] == "cudnn")))')
case " $versions " in *" 9.14 "*) ;; *) fail "(9.14) the doctor did not see 9.14: $versions" ;; esac
case " $versions " in *" 9.19 "*) ;; *) fail "(9.14) the doctor did not see 9.19: $versions" ;; esac
echo "gpu: (9.14) holds: the doctor names the 9.14/9.19 mix ($versions)"
show "$cdm" attach "$V" "$p914"
rc=$?
[ "$rc" = 1 ] || fail "(9.14) cdm attach of 9.14 for PyTorch built with 9.19 exited $rc, not 1"
[ "$(digest "$VSP/nvidia/cudnn")" = "$before" ] || fail "(9.14) the refused attach changed the environment"
show "$cdm" attach "$V" "$p914" --force || fail "(9.14) cdm attach --force failed"
"$cdm" doctor --json "$p914" -- "$V/bin/python3" "$conv" >"$work/e.json"
summary "$work/e.json"
[ "$(cudnn_sources "$work/e.json" | cut -d' ' -f1 | sort -u)" = "$id914" ] ||
  fail "(9.14) forced: not every cuDNN library came from $id914: $(cudnn_sources "$work/e.json")"
show "$cdm" detach "$V" || fail "(9.14) detach failed"
[ "$(digest "$VSP/nvidia/cudnn")" = "$before" ] || fail "(9.14) the wheel's folder is not back byte for byte"
echo "gpu: (9.14) holds: attach refused without --force; forced, every cuDNN library came from $id914; detached byte for byte"
echo "gpu: all steps hold"
