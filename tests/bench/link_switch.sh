#!/bin/bash
# Time project link switches and reads: N alternating `cdm link` calls (each: store lock,
# recovery check, pending generation, symlink + rename, pin, generation done), then N
# `cdm which` calls. Usage: tests/bench/link_switch.sh BUILD_DIR [N]
set -eu
build=$(cd "${1:?usage: link_switch.sh BUILD_DIR [N]}" && pwd)
n=${2:-200}
work=$(mktemp -d "${TMPDIR:-/tmp}/cdm-bench.XXXXXX")
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_ROOT=$work/store CDM_CONFIG=$work/config.ini HOME=$work
: >"$CDM_CONFIG"
mkdir -p "$work/archives" "$work/project"
for v in 9.1.0.70 9.2.0.82; do
  a=$work/archives/cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz
  "$build/tests/make_fixture" "$a"
  "$build/cdm" install -q "$a"
done
start=$(date +%s.%N)
for i in $(seq 1 "$n"); do
  if [ $((i % 2)) -eq 0 ]; then v=9.1; else v=9.2; fi
  "$build/cdm" link -q "$work/project" "$v"
done
mid=$(date +%s.%N)
for i in $(seq 1 "$n"); do "$build/cdm" which "$work/project" >/dev/null; done
end=$(date +%s.%N)
gens=$("$build/cdm" history --json "$work/project" | grep -o '"generation"' | wc -l)
awk -v n="$n" -v s="$start" -v m="$mid" -v e="$end" -v g="$gens" 'BEGIN {
  printf "%d link switches: %.1f ms each; %d which: %.1f ms each; %d generations recorded\n",
    n, (m - s) * 1000 / n, n, (e - m) * 1000 / n, g }'
