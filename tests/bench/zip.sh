#!/bin/bash
# cdm install of a zip of a real cuDNN against what a user would run instead on the same
# archive, and against the floor: the same tree as an uncompressed tar, extracted and
# synced (what writing these bytes costs this disk). cdm with ISA-L's inflater (where
# libisal.so.2 loads) and with zlib's (CDM_TEST_INFLATE=zlib); bsdtar -x, with and without
# sync; Python's zipfile + sync. Fresh folders each run, medians of 3, in turn, page cache
# warm for the archive. Prints the machine's core count and cdm's peak memory.
#
#   tests/bench/zip.sh [path/to/cdm] [CUDNN_DIR]
#
# CDM_BEFORE=path/to/another/cdm adds its two rows (an earlier build, measured in the same
# rounds: what a change bought).
#
# CUDNN_DIR holds a real cuDNN's include/ and lib/ (default: /usr/local/cuda when it has
# one, else the nvidia-cudnn wheel's nvidia/cudnn of the python3 on PATH, else the wheel in
# /var/cache/cdm-wheels unpacked). It is zipped once as NVIDIA zips it (deflate level 6,
# tests/bench/pack_zip.py), cached in ${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}.
# Goals (issue 25): at most 1.4x the floor on 16 cores; at most 0.75x bsdtar on 2.
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
here=$(cd "$(dirname "$0")" && pwd)
cache=${CDM_BENCH_CACHE:-/var/tmp/cdm-bench}
mkdir -p "$cache"
src=${2:-}
if [ -z "$src" ]; then
  for d in /usr/local/cuda /usr/local/cuda-*; do
    if [ -f "$d/include/cudnn_version.h" ]; then src=$d; break; fi
  done
fi
if [ -z "$src" ]; then
  src=$(python3 -c 'import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))' 2>/dev/null || true)
fi
if [ -z "$src" ] || [ ! -f "$src/include/cudnn_version.h" ]; then
  wheel=$(ls /var/cache/cdm-wheels/nvidia_cudnn_cu*-manylinux*_x86_64.whl 2>/dev/null | head -n1 || true)
  [ -n "$wheel" ] || { echo "no real cuDNN here: pass CUDNN_DIR" >&2; exit 1; }
  if [ ! -d "$cache/wheel/nvidia/cudnn" ]; then
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$cache/wheel"
  fi
  src=$cache/wheel/nvidia/cudnn
fi
macro() { sed -n "s/^#define $1 \\([0-9]*\\).*/\\1/p" "$src/include/cudnn_version.h" | head -n1; }
version=$(macro CUDNN_MAJOR).$(macro CUDNN_MINOR).$(macro CUDNN_PATCHLEVEL).0
lib=$src/lib
[ -d "$lib" ] || lib=$src/lib64
name=cudnn-linux-$(uname -m)-${version}_cuda12-archive
zip=$cache/$name.zip
if [ ! -f "$zip" ] || [ ! -f "$cache/$name.tar" ]; then
  echo "packing $src as $name.zip and .tar (once, cached in $cache) ..." >&2
  rm -rf "${cache:?}/$name"
  mkdir -p "$cache/$name/include" "$cache/$name/lib"
  cp "$src"/include/cudnn*.h "$cache/$name/include/"
  cp -P "$lib"/libcudnn*.so* "$cache/$name/lib/"
  python3 "$here/pack_zip.py" "$cache/$name" "$zip.tmp" >/dev/null && mv "$zip.tmp" "$zip"
  tar -C "$cache" -cf "$cache/$name.tar" "$name"
  rm -rf "${cache:?}/$name"
fi
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench-zip.XXXXXX")
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_CONFIG=$work/config.ini CDM_STATE=$work/state.db
: >"$CDM_CONFIG"
fresh() { chmod -R u+w "$work/x" 2>/dev/null || true; rm -rf "$work/x" && mkdir "$work/x" && sync; }
ms() { local s; fresh; s=$(date +%s%N); "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }; echo $((($(date +%s%N) - s) / 1000000)); }
cdm_isal() { CDM_ROOT=$work/x/s "$CDM" install -q "$zip"; }
cdm_zlib() { CDM_TEST_INFLATE=zlib CDM_ROOT=$work/x/s "$CDM" install -q "$zip"; }
before_isal() { CDM_ROOT=$work/x/s "$CDM_BEFORE" install -q "$zip"; }
before_zlib() { CDM_TEST_INFLATE=zlib CDM_ROOT=$work/x/s "$CDM_BEFORE" install -q "$zip"; }
bsd() { bsdtar -xf "$zip" -C "$work/x"; }
bsd_sync() { bsdtar -xf "$zip" -C "$work/x" && sync; }
py_sync() { python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip" "$work/x" && sync; }
floor() { tar -xf "$cache/$name.tar" -C "$work/x" && sync; }
tools="cdm_isal cdm_zlib floor py_sync"
[ -z "${CDM_BEFORE:-}" ] || tools="before_isal before_zlib $tools"
command -v bsdtar >/dev/null && tools="$tools bsd bsd_sync"
declare -A t
for _round in 1 2 3; do
  for tool in $tools; do t[$tool]="${t[$tool]:-} $(ms "$tool")"; done
done
# shellcheck disable=SC2086 # $1 is a list of times, split into words on purpose
median() { printf '%s\n' $1 | sort -n | sed -n 2p; }
declare -A m
for tool in $tools; do m[$tool]=$(median "${t[$tool]}"); done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
fresh
CDM_ROOT=$work/x/s "$CDM" install --verbose "$zip" 2>&1 | sed -n 's/^ *unpacked: /cdm: /p'
echo "$(nproc) cores; $(basename "$zip"): $(($(stat -c %s "$zip") / 1048576)) MiB, $(($(stat -c %s "$cache/$name.tar") / 1048576)) MiB unpacked, largest file $(($(tar -tvf "$cache/$name.tar" | awk '{print $3}' | sort -n | tail -1) / 1048576)) MiB"
printf '%-34s %8s %10s %10s\n' "" "ms" "vs floor" "vs bsdtar"
for tool in $tools; do
  label=$tool
  case $tool in
    cdm_isal) label="cdm install (ISA-L)" ;;
    cdm_zlib) label="cdm install (zlib)" ;;
    before_isal) label="earlier cdm (ISA-L)" ;;
    before_zlib) label="earlier cdm (zlib)" ;;
    floor) label="floor: tar -x of the .tar + sync" ;;
    py_sync) label="python zipfile + sync" ;;
    bsd) label="bsdtar -x" ;;
    bsd_sync) label="bsdtar -x + sync" ;;
  esac
  vs_bsd=-
  [ -n "${m[bsd]:-}" ] && vs_bsd=$(ratio "${m[$tool]}" "${m[bsd]}")
  printf '%-34s %8d %10s %10s\n' "$label" "${m[$tool]}" "$(ratio "${m[$tool]}" "${m[floor]}")" "$vs_bsd"
done
if [ -x /usr/bin/time ]; then
  fresh
  CDM_ROOT=$work/x/s /usr/bin/time -f 'peak memory of cdm install: %M KiB' "$CDM" install -q "$zip" 2>&1 | tail -1
fi
