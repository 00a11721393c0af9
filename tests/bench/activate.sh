#!/bin/bash
# How long `cdm activate` takes against starting /bin/true (the target: at most 3 times).
# Usage: tests/bench/activate.sh [path/to/cdm] [path/to/make_fixture]
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
"$MAKE_FIXTURE" "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
"$CDM" install -q "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
mkdir -p "$work/p/a/b/c"
ln -s "$CDM_ROOT/9.1.0.70-cuda12" "$work/p/cuda_link"
cd "$work/p/a/b/c"
"$CDM" activate --shell bash >/dev/null

if ! command -v hyperfine >/dev/null; then
  echo "hyperfine is missing: apt-get install hyperfine" >&2
  exit 1
fi
# In turns, rounds of a few runs, the median round (turns.py says why).
python3 "$here/turns.py" /bin/true "$CDM --version" "$CDM activate --shell bash" >"$work/turns"
{
  read -r _ t
  IFS=$'\t' read -r _ v vr vl vh
  IFS=$'\t' read -r _ a ar al ah
} <"$work/turns"
printf '/bin/true               %8.2f ms\n' "$t"
printf 'cdm --version           %8.2f ms  (%.2fx true, rounds %.2fx to %.2fx: starting cdm)\n' "$v" "$vr" "$vl" "$vh"
printf 'cdm activate (3 levels) %8.2f ms  (%.2fx true, rounds %.2fx to %.2fx; goal 3x)\n' "$a" "$ar" "$al" "$ah"
