#!/usr/bin/env bash
# cdm on a large store: 1,000 installs and 10,000 linked projects (tests/bench/make_large_store.py),
# each figure against starting /bin/true in the same run (hyperfine).
#
#   tests/bench/scale.sh [BUILD_DIR] [INSTALLS] [PROJECTS]
#
# The store is made once and kept in ${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}/store-I-P (about
# 100 MB for the default size); delete that folder to make it anew.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
installs=${2:-1000}
projects=${3:-10000}
here=$(cd "$(dirname "$0")" && pwd)
cache=${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}
work=$cache/store-$installs-$projects
command -v hyperfine >/dev/null || { echo "hyperfine is missing: apt-get install hyperfine" >&2; exit 1; }
if [ ! -f "$work/ready" ] || [ ! -f "$work/state.db" ]; then
  rm -rf "$work"
  echo "making a store of $installs installs and $projects projects in $work ..." >&2
  python3 "$here/make_large_store.py" "$build/cdm" "$build/tests/make_fixture" "$work" \
    "$installs" "$projects" >/dev/null
  touch "$work/ready"
fi
export CDM_CONFIG=$work/config.ini CDM_ROOT=$work/store CDM_STATE=$work/state.db
cdm=$build/cdm
project=$work/projects/p00042
switch=$work/projects/p00043
cd "$project"
eval "$("$cdm" activate --shell bash)" # the prompt hook's case: this shell is already right
read -r a b < <("$cdm" list --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[0]["id"], d[1]["id"])')

json=$(mktemp)
trap 'rm -f "$json"*' EXIT
hyperfine -N --warmup 5 --runs "${RUNS:-50}" --export-json "$json" \
  /bin/true \
  "$cdm list" \
  "$cdm list --json" \
  >/dev/null
# Activation is held against /bin/true, a ratio near 1: timed in turns, rounds of a few runs,
# the median round reported with the range (turns.py says why).
python3 "$here/turns.py" /bin/true "$cdm activate --shell bash" "$cdm activate --auto --shell bash" \
  >"$json.turns"
# A link switch: each timed run switches the project to a, after an untimed switch to b.
hyperfine -N --warmup 3 --runs "${RUNS:-50}" --export-json "$json.link" \
  --prepare "$cdm link -q $switch $b" "$cdm link -q $switch $a" >/dev/null

python3 - "$json" "$installs" "$projects" <<'EOF'
import json, sys
base = sys.argv[1]
def means(path):
    return {r["command"].split("/")[-1]: r["mean"] * 1000 for r in json.load(open(path))["results"]}
ms = means(base)
true = ms.pop("true")
link = means(base + ".link")
print("store: %s installs, %s projects; /bin/true %.2f ms" % (sys.argv[2], sys.argv[3], true))
for cmd, goal in (("cdm list", 50), ("cdm list --json", 60)):
    print("%-34s %8.2f ms  %5.1fx /bin/true  (goal %g ms)" % (cmd, ms[cmd], ms[cmd] / true, goal))
turns = [line.rstrip("\n").split("\t") for line in open(base + ".turns")][1:]
for (cmd, t, ratio, low, high), goal in zip(turns, (3, 1.5)):
    print("%-34s %8.2f ms  %5.2fx /bin/true  (goal %gx; median of the rounds, from %.2fx to %.2fx)" %
          (cmd.split("/")[-1], float(t), float(ratio), goal, float(low), float(high)))
t = list(link.values())[0]
print("%-34s %8.2f ms  %5.1fx /bin/true  (goal 10 ms)" % ("cdm link (a switch)", t, t / true))
EOF
