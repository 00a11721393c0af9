#!/usr/bin/env bash
# Benchmark of issue 14's install goals: `cdm install` against `bsdtar -xf` on the same
# archives, in the same run, and cdm's peak memory.
#
#   tests/bench/install.sh [BUILD_DIR] [TAR_XZ]
#
# TAR_XZ defaults to the machine's real cuDNN packed in full (about 470 MB unpacked; the
# packed archive is cached in ${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}), else a generated
# archive of the same size; the zip is the same tree zipped (cached beside it). Each tool
# runs ${CDM_BENCH_RUNS:-5} times into fresh folders, in turn; the median counts. cdm does more than bsdtar: it hashes the archive and every file, makes them
# durable (an fsync each, from several threads, or one syncfs) before recording them in SQLite.
#
# Goals: 1. tar.xz cdm <= 1.05x bsdtar; 2. zip cdm <= 0.85x bsdtar; 3. peak RSS < 64 MiB.
set -euo pipefail
build=${1:-build}
cdm=$(readlink -f "$build/cdm")
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}
runs=${CDM_BENCH_RUNS:-5}
mkdir -p "$cache"
command -v bsdtar >/dev/null || { echo "bsdtar is missing: apt-get install libarchive-tools" >&2; exit 1; }
command -v zip >/dev/null || { echo "zip is missing: apt-get install zip" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }
archive=${2:-}
if [ -z "$archive" ]; then
  archive=$(ls "$cache"/cudnn-linux-*-archive.tar.xz 2>/dev/null | head -n1 || true)
  if [ -z "$archive" ]; then
    echo "packing the real cuDNN (once, cached in $cache) ..." >&2
    if ! archive=$("$here/pack_real_cudnn.sh" "$cache.tmp" --full); then
      echo "no real cuDNN: generating a 470 MB stand-in archive" >&2
      archive=$cache.tmp/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
      mkdir -p "$cache.tmp"
      "$build/tests/make_fixture" "$archive" --pad 470000000
    fi
    mv "$archive" "$cache/" && archive=$cache/$(basename "$archive")
  fi
fi
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench.XXXXXX")
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
zip_archive=$cache/$(basename "$archive" .tar.xz).zip
if [ ! -f "$zip_archive" ]; then
  echo "zipping the same tree (once, cached in $cache) ..." >&2
  mkdir -p "$work/tree"
  bsdtar -xf "$archive" -C "$work/tree"
  (cd "$work/tree" && zip -q -r -y "$work/tree.zip" .)
  mv "$work/tree.zip" "$zip_archive"
  rm -rf "$work/tree"
fi

measure() { # measure COMMAND...: prints "seconds peak_kib"
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  cat "$work/time"
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
peak_kib=0
run_cdm() {
  rm -rf "$work/store" && sync
  read -r t m < <(measure "$cdm" --quiet --root "$work/store" install "$file")
  c+=("$t")
  if [ "$m" -gt "$peak_kib" ]; then peak_kib=$m; fi
}
run_bsdtar() {
  rm -rf "$work/bsdtar" && mkdir -p "$work/bsdtar" && sync
  read -r t m < <(measure bsdtar -xf "$file" -C "$work/bsdtar")
  b+=("$t")
}
# bench NAME ARCHIVE GOAL: cdm and bsdtar in turn (which goes first alternates, so that
# neither always follows the other's deletions), prints the median of each and the ratio
# of the medians: on a shared 2-core machine single runs vary by 10%, and a best-of-N
# rewards whichever tool met the one quiet moment.
bench() {
  local name=$1 file=$2 goal=$3 t m
  local -a c=() b=()
  for i in $(seq "$runs"); do
    if [ $((i % 2)) -eq 1 ]; then run_cdm && run_bsdtar; else run_bsdtar && run_cdm; fi
  done
  rm -rf "$work/store" "$work/bsdtar"
  local cb bb
  cb=$(median "${c[@]}")
  bb=$(median "${b[@]}")
  echo "$name: $(basename "$file") ($(($(stat -c %s "$file") / 1048576)) MiB)"
  echo "  cdm install  median ${cb}s of (${c[*]})"
  echo "  bsdtar -xf   median ${bb}s of (${b[*]})"
  awk -v c="$cb" -v b="$bb" -v g="$goal" -v n="$name" 'BEGIN {
    r = b > 0 ? c / b : 0
    printf "  goal: %s cdm <= %.2fx bsdtar: %.2fx %s\n", n, g, r, (r <= g ? "PASS" : "FAIL") }'
}
echo "machine: $(nproc) cores, $(uname -m); load:$(uptime | sed 's/.*load average://')"
bench "1. tar.xz" "$archive" 1.05
bench "2. zip" "$zip_archive" 0.85
awk -v m="$peak_kib" 'BEGIN {
  printf "3. peak memory of cdm install < 64 MiB: %.1f MiB %s\n", m / 1024, (m < 65536 ? "PASS" : "FAIL") }'
echo "load after:$(uptime | sed 's/.*load average://')"
