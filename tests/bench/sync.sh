#!/usr/bin/env bash
# How long an install waits to make its files durable, on an idle disk and while another
# program has writes pending on the same file system: an fsync of each of the install's files
# and folders (cdm's way up to 4,096 entries) against one syncfs of the file system (its way
# past that, and its only way before), in the same run.
#
#   tests/bench/sync.sh [BUILD_DIR] [VERSION_ARCHIVE]
#
# The archive defaults to a generated one of NVIDIA's layout (a few dozen small files: the
# 1 KB case of the issue). The other program is `dd` writing ${CDM_BENCH_DIRTY_MB:-1024} MB
# without a flush into the same folder, started just before each install. Each way runs
# ${CDM_BENCH_RUNS:-5} times; the median counts. Prints one line per case, in seconds.
set -euo pipefail
build=${1:-build}
cdm=$(readlink -f "$build/cdm")
runs=${CDM_BENCH_RUNS:-5}
dirty_mb=${CDM_BENCH_DIRTY_MB:-1024}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench.XXXXXX")
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'kill $(jobs -p) 2>/dev/null || true; rm_tree "$work"' EXIT
archive=${2:-$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz}
[ -f "$archive" ] || "$build/tests/make_fixture" "$archive" >/dev/null

# one_install EACH_MAX DIRTY: seconds of one install into a fresh store, with dd writing
# DIRTY MB beside it (0: none)
one_install() {
  local root=$work/store.$RANDOM dd_pid=
  if [ "$2" -gt 0 ]; then
    dd if=/dev/zero of="$work/dirty" bs=1M count="$2" status=none &
    dd_pid=$!
    sleep 1 # its writes are pending when the install begins
  fi
  local t0 t1
  t0=$(date +%s.%N)
  CDM_SYNC_EACH_MAX=$1 CDM_ROOT=$root CDM_CONFIG=/dev/null XDG_DATA_HOME=$work/data \
    "$cdm" install "$archive" >/dev/null 2>&1
  t1=$(date +%s.%N)
  [ -z "$dd_pid" ] || wait "$dd_pid"
  rm -f "$work/dirty"
  sync
  rm_tree "$root"
  echo "$t1 - $t0" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for dirty in 0 "$dirty_mb"; do
  for way in "4096:an fsync each" "0:one syncfs"; do
    t=$(for _ in $(seq "$runs"); do one_install "${way%%:*}" "$dirty"; done | median)
    echo "install, $([ "$dirty" = 0 ] && echo "idle disk" || echo "$dirty MB pending beside it"), ${way#*:}: $t s"
  done
done
