#!/usr/bin/env bash
# cuDNN from where the GPU machine has it (CI has no GPU and does not run this):
#   tests/gpu/sources.sh CDM WORK_DIR
# 1. The PyTorch venv's nvidia-cudnn wheel, installed as a folder (checked against the
#    RECORD pip left), verified, linked, and the doctor's library checks on the real GPU.
# 2. The machine's Debian-style packages (libcudnn9-cuda-13, in /usr), installed as a folder.
# 3. The same wheel packed again (deflated as NVIDIA's are) and installed as a wheel: the same
#    library bytes, the same install.
# 4. cdm scan of the machine, and of the folder that holds PyTorch's venv.
# 5. The wheel bench (tests/bench/wheel.sh) on this machine's cores.
set -uo pipefail
cdm=$(realpath "${1:?usage: sources.sh CDM WORK_DIR}")
work=${2:?usage: sources.sh CDM WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/home"
export CDM_ROOT=$work/store CDM_CONFIG=/dev/null CDM_STATE=$work/state.db
show() { printf '$ %s\n' "$*"; "$@"; }
site=$(python3 -c 'import nvidia.cudnn, os; print(os.path.dirname(os.path.dirname(list(nvidia.cudnn.__path__)[0])))')
venv=$(python3 -c 'import sys; print(sys.prefix)')
nproc; nvidia-smi -L
show "$cdm" install "$venv" --json || exit 1
show "$cdm" install /usr --cuda 13 --build 64 --json
show "$cdm" list
show "$cdm" verify || exit 1
mkdir -p "$work/p"
show "$cdm" link "$work/p" "$(python3 -c 'import importlib.metadata as m; print(m.version("nvidia-cudnn-cu13"))')" || exit 1
show "$cdm" doctor "$work/p" | grep -E '^(ok|warn|fail) +(library|same|driver|compat)'
whl=$(python3 "$here/wheel_of_installed.py" "$site" nvidia-cudnn-cu13 "$work" --deflate)
show "$cdm" install "$whl" --json
show "$cdm" scan
show "$cdm" scan "$(dirname "$venv")"
show bash "$here/../bench/wheel.sh" "$cdm" "$whl"
