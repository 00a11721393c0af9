#!/bin/bash
# What knowing the machine costs: `cdm resolve` reading this boot's record of the driver and
# GPUs, against `cdm resolve --fresh` (NVML loaded and asked, as the doctor does), against
# `nvidia-smi -L` (what a user asks instead) and a start of /bin/true. Meaningful on a
# machine with an NVIDIA driver; without one --fresh only fails to find NVML.
# Usage: tests/bench/resolve.sh [path/to/cdm] [path/to/make_fixture]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MAKE_FIXTURE=$(realpath "${2:-build/tests/make_fixture}")
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_ROOT="$work/store" CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state.db"
: >"$CDM_CONFIG"
# one install to choose (where make_fixture cannot run, the GPU machine: an empty store)
"$MAKE_FIXTURE" "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz" 2>/dev/null &&
  "$CDM" install -q "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz" ||
  echo "no fixture here: the store stays empty" >&2
mkdir -p "$work/p"
cd "$work/p"
"$CDM" resolve >/dev/null || true
cmds=(/bin/true "$CDM resolve" "$CDM resolve --fresh")
command -v nvidia-smi >/dev/null && cmds+=("nvidia-smi -L")
# In turns, rounds of a few runs, the median round (turns.py says why); where hyperfine is
# missing (the GPU machine), the same in turns with Python's clock.
if command -v hyperfine >/dev/null; then
  python3 "$here/turns.py" "${cmds[@]}"
  exit
fi
python3 - "${cmds[@]}" <<'PY'
import shlex, statistics, subprocess, sys, time
def median_ms(cmd, n=12):
    xs = []
    for i in range(n + 3):
        s = time.perf_counter()
        subprocess.run(shlex.split(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i >= 3:
            xs.append((time.perf_counter() - s) * 1000)
    return statistics.median(xs)
ratios = {c: [] for c in sys.argv[2:]}
base = []
for _ in range(5):
    b = median_ms(sys.argv[1])
    base.append(b)
    for c in ratios:
        ratios[c].append(median_ms(c) / b)
print(f"{sys.argv[1]}\t{statistics.median(base):.3f}")
for c, v in ratios.items():
    print(f"{c}\t{statistics.median(v):.3f}\t{min(v):.3f}\t{max(v):.3f}")
PY
