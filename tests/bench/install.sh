#!/usr/bin/env bash
# Benchmark: `cdm install` against `bsdtar -xf` on the same archive, plus cdm's peak memory.
#
#   tests/bench/install.sh [BUILD_DIR] [ARCHIVE]
#
# ARCHIVE defaults to the machine's real cuDNN packed in full (about 470 MB unpacked; the
# packed archive is cached in ${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}), else a generated
# archive of the same size. Each tool runs 3 times into fresh folders; the best time counts.
# cdm does more than bsdtar: it hashes the archive and every file, and records them in
# SQLite, in the same single pass.
set -euo pipefail
build=${1:-build}
cdm=$(readlink -f "$build/cdm")
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}
mkdir -p "$cache"
archive=${2:-}
if [ -z "$archive" ]; then
  archive=$(ls "$cache"/cudnn-linux-*-archive.tar.xz 2>/dev/null | head -n1 || true)
  if [ -z "$archive" ]; then
    echo "packing the real cuDNN (once, cached in $cache) ..." >&2
    if ! archive=$("$here/pack_real_cudnn.sh" "$cache" --full); then
      echo "no real cuDNN: generating a 470 MB stand-in archive" >&2
      archive=$cache/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
      "$build/tests/make_fixture" "$archive" --pad 470000000
    fi
  fi
fi
command -v bsdtar >/dev/null || { echo "bsdtar is missing: apt-get install libarchive-tools" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install time" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
best() { sort -n | head -n1; }
measure() { # measure LABEL COMMAND...: prints "seconds peak_kib"
  shift
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  cat "$work/time"
}

size=$(stat -c %s "$archive")
unpacked=$(xz -l --robot "$archive" 2>/dev/null | awk '/^totals/ {print $5}')
echo "archive: $(basename "$archive") ($((size / 1048576)) MiB packed, $((${unpacked:-0} / 1048576)) MiB unpacked)"
echo "machine: $(nproc) cores, $(uname -m)"
declare -a cdm_t bsd_t
cdm_mem=0
for i in 1 2 3; do
  rm -rf "$work/store" "$work/bsdtar"
  sync
  read -r t m < <(measure cdm "$cdm" --quiet --root "$work/store" install "$archive")
  cdm_t+=("$t")
  [ "$m" -gt "$cdm_mem" ] && cdm_mem=$m
  mkdir -p "$work/bsdtar"
  sync
  read -r t m < <(measure bsdtar bsdtar -xf "$archive" -C "$work/bsdtar")
  bsd_t+=("$t")
  bsd_mem=$m
done
c=$(printf '%s\n' "${cdm_t[@]}" | best)
b=$(printf '%s\n' "${bsd_t[@]}" | best)
echo "cdm install: best ${c}s of (${cdm_t[*]}), peak RSS ${cdm_mem} KiB"
echo "bsdtar -xf:  best ${b}s of (${bsd_t[*]}), peak RSS ${bsd_mem} KiB"
awk -v c="$c" -v b="$b" 'BEGIN { if (b > 0) printf "ratio cdm/bsdtar: %.2f\n", c / b }'
