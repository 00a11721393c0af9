#!/usr/bin/env bash
# cdm resolve and 'auto' on a GPU machine with PyTorch (CI has no GPU and does not run this):
#   tests/gpu/resolve.sh CDM WORK_DIR
# 1. The machine's two real cuDNN installed as folders: the PyTorch venv's wheel (9.19) and
#    the Debian-style packages in /usr (9.14).
# 2. `cdm resolve --json` names the GPU, its compute capability and the real driver; in a
#    project whose .venv is PyTorch's, 9.14 is refused by torch's rule.
# 3. `cdm link . auto` links the newest install PyTorch accepts, and a convolution runs on it
#    through `cdm exec --check` (every cuDNN library from the store, the driver loaded).
# 4. `cdm doctor -- python3 -c pass` fails "ran without the GPU"; --allow-cpu passes.
set -uo pipefail
cdm=$(realpath "${1:?usage: resolve.sh CDM WORK_DIR}")
work=${2:?usage: resolve.sh CDM WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/home" "$work/p"
export CDM_ROOT=$work/store CDM_CONFIG=/dev/null CDM_STATE=$work/state.db
show() { printf '$ %s\n' "$*" >&2; "$@"; }
fail() { echo "gpu: FAILED: $*" >&2; exit 1; }
venv=$(python3 -c 'import sys; print(sys.prefix)')
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
show "$cdm" install -q "$venv" || fail "installing the wheel failed"
show "$cdm" install -q /usr --cuda 13 --build 64 || fail "installing /usr failed"
ln -s "$venv" "$work/p/.venv"
cd "$work/p" || exit 1
show "$cdm" resolve
show "$cdm" resolve --json >"$work/resolve.json" || fail "resolve chose nothing"
python3 - "$work/resolve.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
g = d["machine"]["gpus"][0]
print("GPU:", g["name"], g["compute_capability"], "driver", d["machine"]["driver_version"],
      "CUDA", d["machine"]["driver_cuda"], "chosen", d["chosen"])
assert "H200" in g["name"] or "H100" in g["name"], g
assert g["compute_capability"] == "9.0", g
refused = {c["id"]: [r["text"] for r in c["reasons"] if r["refuses"]] for c in d["candidates"]}
print("refused:", {k: v for k, v in refused.items() if v})
assert d["chosen"].startswith("9.19."), d["chosen"]
assert any("torch" in t for t in refused.get("9.14.0.64-cuda13", [])), refused
PY
show "$cdm" link . auto || fail "link auto failed"
show readlink cuda_link
show "$cdm" exec --check -- python3 "$here/conv.py" || fail "the convolution did not run on the store's cuDNN and the GPU"
show "$cdm" doctor --json -- python3 -c pass >"$work/d.json"
rc=$?
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(c["name"], c["status"], c["detail"]) for c in d["checks"] if c["name"] in ("machine.gpu", "machine.cudnn", "resolve", "run.gpu")])' "$work/d.json"
[ "$rc" = 1 ] || fail "doctor -- python3 -c pass exited $rc, not 1"
show "$cdm" doctor --allow-cpu -- python3 -c pass >/dev/null
rc=$?
echo "with --allow-cpu: exit $rc"
show "$cdm" doctor --json -- python3 "$here/conv.py" >"$work/d2.json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(c["name"], c["status"], c["detail"]) for c in d["checks"] if c["name"] in ("run.gpu", "run.cudnn")])' "$work/d2.json"
echo "gpu: resolve holds"
