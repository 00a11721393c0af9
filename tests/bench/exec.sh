#!/bin/bash
# What `cdm exec` costs a command's start, against starting /bin/true: cdm exec -- /bin/true
# with the redirect (LD_AUDIT with cdm-audit.so, which the loader then calls for every
# library search) and with --no-redirect (the activation's environment alone).
# Usage: tests/bench/exec.sh [path/to/cdm] [path/to/make_fixture]
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
mkdir -p "$work/p"
"$CDM" link -q "$work/p" 9.1
if ! command -v hyperfine >/dev/null; then
  echo "hyperfine is missing: apt-get install hyperfine" >&2
  exit 1
fi
# In turns, rounds of a few runs, the median round (turns.py says why).
python3 "$here/turns.py" /bin/true "$CDM exec $work/p -- /bin/true" \
  "$CDM exec --no-redirect $work/p -- /bin/true" >"$work/turns"
{
  read -r _ t
  IFS=$'\t' read -r _ e er el eh
  IFS=$'\t' read -r _ n nr nl nh
} <"$work/turns"
printf '/bin/true                          %8.2f ms\n' "$t"
printf 'cdm exec -- /bin/true              %8.2f ms  (%.2fx true, rounds %.2fx to %.2fx)\n' "$e" "$er" "$el" "$eh"
printf 'cdm exec --no-redirect -- /bin/true %7.2f ms  (%.2fx true, rounds %.2fx to %.2fx)\n' "$n" "$nr" "$nl" "$nh"
