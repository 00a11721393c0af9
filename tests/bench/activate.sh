#!/bin/bash
# How long `cdm activate` takes against starting /bin/true (the target: at most 3 times).
# Usage: tests/bench/activate.sh [path/to/cdm] [path/to/make_fixture]
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MAKE_FIXTURE=$(realpath "${2:-build/tests/make_fixture}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDM_ROOT="$work/store" CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state.db"
: >"$CDM_CONFIG"
"$MAKE_FIXTURE" "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
"$CDM" install -q "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
mkdir -p "$work/p/a/b/c"
ln -s "$CDM_ROOT/9.1.0.70-cuda12" "$work/p/cuda_link"
cd "$work/p/a/b/c"
"$CDM" activate --shell bash >/dev/null

mean_ms() { # mean wall time of N runs of a command, in milliseconds
  local n=$1 start end
  shift
  start=$(date +%s%N)
  for ((i = 0; i < n; i++)); do "$@" >/dev/null; done
  end=$(date +%s%N)
  echo "scale=3; ($end - $start) / $n / 1000000" | bc
}
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 20 --runs 300 /bin/true "$CDM --version" "$CDM activate --shell bash" \
    --export-json "$work/h.json" >/dev/null
  read -r t v a < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]
print(*[x["mean"]*1000 for x in r])' "$work/h.json")
else
  t=$(mean_ms 300 /bin/true)
  v=$(mean_ms 300 "$CDM" --version)
  a=$(mean_ms 300 "$CDM" activate --shell bash)
fi
printf '/bin/true               %8.2f ms\n' "$t"
printf 'cdm --version           %8.2f ms  (%.1fx true: loading cdm and its libraries)\n' "$v" "$(echo "$v / $t" | bc -l)"
printf 'cdm activate (3 levels) %8.2f ms  (%.1fx true; target 3x)\n' "$a" "$(echo "$a / $t" | bc -l)"
