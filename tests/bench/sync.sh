#!/usr/bin/env bash
# How long an install waits to make its files durable, on an idle disk and while another
# program has writes pending on the same file system, for each way cdm can flush
# (CDM_SYNC_WAY): an fsync of each file and folder one after the other (the way before),
# the same fsyncs from several threads at once, one syncfs of the file system, and the way
# cdm chooses by the install's size and what the system has pending. In one run:
#
#   tests/bench/sync.sh [BUILD_DIR] [VERSION_ARCHIVE]
#
# The archive defaults to a generated one of NVIDIA's layout (a few dozen small files: the
# 1 KB case of the issue). The other program is `dd` writing ${CDM_BENCH_DIRTY_MB:-2048} MB
# without a flush into the same folder, ended just before each install: "pending" while
# its data waits in memory, "written back" when a flush of it (`sync FILE`) is under way
# too, which is where the device's queue is full. Each case runs ${CDM_BENCH_RUNS:-5} times,
# the ways in turn; the median counts. Then the floor under a full queue (one fresh 4 KB
# file written and fdatasync'd), and a large install (${CDM_BENCH_BIG_FILES:-5000} files and
# ${CDM_BENCH_BIG_MB:-300} MB; 0 files: none) ${CDM_BENCH_BIG_RUNS:-3} times, where the
# flush's own time (from its first fsync or syncfs to its last, under strace where there is
# one) shows the choice by size. Seconds; ratio: with the other program's writes / idle.
set -euo pipefail
build=${1:-build}
cdm=$(readlink -f "$build/cdm")
runs=${CDM_BENCH_RUNS:-5}
dirty_mb=${CDM_BENCH_DIRTY_MB:-2048}
big_files=${CDM_BENCH_BIG_FILES:-5000}
big_mb=${CDM_BENCH_BIG_MB:-300}
big_runs=${CDM_BENCH_BIG_RUNS:-3}
ways=(serial parallel syncfs chosen)
declare -A label=([serial]="an fsync each, one by one" [parallel]="an fsync each, in parallel"
  [syncfs]="one syncfs" [chosen]="chosen by size (cdm)")
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench.XXXXXX")
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'kill $(jobs -p) 2>/dev/null || true; rm_tree "$work"' EXIT
name=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
archive=${2:-$work/$name}
[ -f "$archive" ] || "$build/tests/make_fixture" "$archive" >/dev/null
tracer=
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then tracer=strace; fi

# other_program STATE: starts dd (none when STATE is idle); "back": and a flush of its file
other_program() {
  [ "$1" != idle ] || return 0
  # ended before the install begins: its writes wait in memory, and no CPU is shared
  dd if=/dev/zero of="$work/dirty" bs=1M count="$dirty_mb" status=none
  if [ "$1" = back ]; then
    sync "$work/dirty" &
    sleep 0.2 # its writeback is under way
  fi
}
# settle: the other program ended, its file gone, the disk idle again
settle() {
  wait
  rm -f "$work/dirty"
  sync
}
# one_install WAY STATE ARCHIVE [TRACE]: seconds of one install into a fresh store beside
# the other program in STATE; with TRACE, under strace, its fsyncs and syncfs written there
one_install() {
  local root=$work/store.$RANDOM t0 t1 way=$1
  [ "$way" != chosen ] || way=
  other_program "$2"
  t0=$(date +%s.%N)
  if [ -n "${4:-}" ]; then
    CDM_SYNC_WAY=$way CDM_ROOT=$root CDM_CONFIG=/dev/null XDG_DATA_HOME=$work/data \
      strace -f -tt -T -y -o "$4" -e trace=fsync,syncfs "$cdm" install "$3" >/dev/null 2>"$work/err"
  else
    CDM_SYNC_WAY=$way CDM_ROOT=$root CDM_CONFIG=/dev/null XDG_DATA_HOME=$work/data \
      "$cdm" install "$3" >/dev/null 2>"$work/err"
  fi || {
    cat "$work/err" >&2
    exit 1
  }
  t1=$(date +%s.%N)
  settle
  rm_tree "$root"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
# flush_span TRACE: seconds from the start of the first fsync or syncfs of the staging
# folder's entries to the end of the last (the folder's own fsync, or the syncfs)
flush_span() {
  awk '/(fsync|syncfs)\(/ && /\.staging\// || /syncfs\(/ || /fsync resumed/ {
      split($2, h, ":"); t = h[1] * 3600 + h[2] * 60 + h[3]
      if (start == "" && $0 !~ /resumed/) start = t
      d = $0; sub(/.*</, "", d); sub(/>.*/, "", d)
      if ($0 ~ /resumed/) d = 0 # stamped as it returns, not as it began
      if (start != "" && t + d > end) end = t + d
    } END { printf "%.3f\n", end - start }' "$1"
}
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f\n", v[int((NR + 1) / 2)] }'; }
ratio() { echo "$1 $2" | awk '{ printf "%.2fx", $1 / $2 }'; }

# Small install: every way and state in turn, medians.
declare -A t m s
for _ in $(seq "$runs"); do # states in turn too: the machine's noise falls on each alike
  for way in "${ways[@]}"; do
    for state in idle pending back; do
      t[$state.$way]+="$(one_install "$way" "$state" "$archive") "
    done
  done
done
echo "small install ($(basename "$archive")), medians of $runs; $dirty_mb MB of dd's beside it"
printf '%-28s %8s %10s %7s %13s %7s\n' way idle pending ratio "written back" ratio
for way in "${ways[@]}"; do
  for state in idle pending back; do m[$state]=$(tr ' ' '\n' <<<"${t[$state.$way]}" | grep . | median); done
  printf '%-28s %8s %10s %7s %13s %7s\n' "${label[$way]}" "${m[idle]}" "${m[pending]}" \
    "$(ratio "${m[pending]}" "${m[idle]}")" "${m[back]}" "$(ratio "${m[back]}" "${m[idle]}")"
done
# m holds the last way's medians: chosen by size
goal=$(echo "${m[pending]} ${m[idle]}" | awk '{ print $1 <= 1.2 * $2 ? "PASS" : "FAIL" }')
echo "goal: chosen by size, pending <= 1.2x idle: $(ratio "${m[pending]}" "${m[idle]}") $goal"

# The floor: a fresh 4 KB file written and fdatasync'd, idle and beside the writeback.
probe() {
  local t0 t1
  other_program "$1"
  t0=$(date +%s.%N)
  dd if=/dev/zero of="$work/probe" bs=4k count=1 conv=fdatasync status=none
  t1=$(date +%s.%N)
  settle
  rm -f "$work/probe"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
idle=$(for _ in $(seq "$runs"); do probe idle; done | median)
back=$(for _ in $(seq "$runs"); do probe back; done | median)
echo "floor: one fresh 4 KB file written and fdatasync'd: idle $idle s, beside $dirty_mb MB" \
  "written back $back s ($(ratio "$back" "$idle"))"

[ "$big_files" -gt 0 ] || exit 0
big=$work/big/$name
mkdir -p "$work/big"
"$build/tests/make_fixture" "$big" --many-files "$big_files" --zeros $((big_mb << 20)) >/dev/null
echo "large install ($big_files files, $big_mb MB), medians of $big_runs: install / its flush" \
  "${tracer:+(strace)}"
printf '%-28s %16s %16s %7s\n' way idle pending ratio
declare -A b f
for state in idle pending; do
  for way in "${ways[@]}"; do b[$state.$way]='' f[$state.$way]=''; done
  for _ in $(seq "$big_runs"); do
    for way in "${ways[@]}"; do
      b[$state.$way]+="$(one_install "$way" "$state" "$big" ${tracer:+"$work/trace"}) "
      [ -z "$tracer" ] || f[$state.$way]+="$(flush_span "$work/trace") "
    done
  done
done
for way in "${ways[@]}"; do
  for state in idle pending; do
    m[$state]=$(tr ' ' '\n' <<<"${b[$state.$way]}" | grep . | median)
    s[$state]=${m[$state]} # without strace, the whole install
    [ -z "$tracer" ] || s[$state]=$(tr ' ' '\n' <<<"${f[$state.$way]}" | grep . | median)
  done
  printf '%-28s %16s %16s %7s\n' "${label[$way]}" "${m[idle]} / ${s[idle]}" \
    "${m[pending]} / ${s[pending]}" "$(ratio "${s[pending]}" "${s[idle]}")"
done
