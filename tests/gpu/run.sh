#!/usr/bin/env bash
# The doctor on a GPU machine (CI has no GPU and does not run this):
#   tests/gpu/run.sh CDM WORK_DIR
# Packs the cuDNN that the machine's PyTorch ships into a layout-C archive, installs it
# with CDM, links a project with `cdm link`, activates it in bash, runs `cdm doctor` (which must
# report cudnnCreate succeeding), then builds tests/gpu/conv.c against the link's headers
# and library and runs one convolution forward through it.
set -uo pipefail
cdm=${1:?usage: run.sh CDM WORK_DIR}
work=${2:?usage: run.sh CDM WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
tests=$(dirname "$here")
fail() { echo "gpu: $*" >&2; exit 1; }
mkdir -p "$work"

wheel=$(python3 -c 'import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__) if nvidia.cudnn.__file__ else list(nvidia.cudnn.__path__)[0])') ||
  fail "no PyTorch cuDNN wheel (nvidia.cudnn) here"
python3 -c 'import torch; print("torch", torch.__version__, "cuDNN", torch.backends.cudnn.version(), "GPU", torch.cuda.get_device_name(0))'
# pack_real_cudnn.sh wants a CUDA-style root; the wheel's dist-info gives the build number.
root=$work/wheel-root
mkdir -p "$root/dist-info"
ln -sfn "$wheel/include" "$root/include"
ln -sfn "$wheel/lib" "$root/lib"
for d in "$(dirname "$wheel")"/../nvidia_cudnn_cu*.dist-info; do ln -sfn "$(cd "$d" && pwd)" "$root/dist-info/"; done
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
cd "$proj"
eval "$("$cdm" activate --shell bash)" || fail "activate failed"
echo "activated: CDM_ACTIVE=$CDM_ACTIVE LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

"$cdm" verify "$id" || fail "verify failed"
"$cdm" doctor
doctor_rc=$?
"$cdm" doctor --json >"$work/doctor.json"
python3 - "$work/doctor.json" <<'PY' || fail "doctor did not report cudnnCreate succeeding"
import json, sys
d = json.load(open(sys.argv[1]))
h = [c for c in d["checks"] if c["name"] == "library.handle"][0]
print("doctor ok:", d["ok"], "| library.handle:", h["status"], "-", h["detail"])
sys.exit(0 if h["status"] == "ok" and "CUDNN_STATUS_SUCCESS" in h["detail"] else 1)
PY

cuda=${CUDA_TOOLKIT:-/usr/local/cuda}
cc -O2 -o "$work/conv" "$here/conv.c" -I "$proj/cuda_link/include" -I "$cuda/include" \
  -L "$proj/cuda_link/lib" -l:libcudnn.so.9 -L "$cuda/lib64" -lcudart -ldl || fail "conv.c did not build"
"$work/conv" || fail "the convolution failed"
echo "doctor exit status: $doctor_rc"
exit "$doctor_rc"
