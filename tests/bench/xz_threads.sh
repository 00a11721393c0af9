#!/bin/bash
# cdm install of a .tar.xz of one xz block and of many (xz -T0 -6 with 8 MiB blocks; xz -T0 -1,
# 3 MiB blocks, as tests/pack_real_cudnn.sh packs), against
# what a user would run instead on the same archive: `tar -I 'xz -T0' -x` then sync, and
# bsdtar -x then sync; medians of 3, in turn; and the floor, the same tar uncompressed,
# extracted and synced (what writing the bytes costs this disk). The tar holds MB megabytes
# (default 150) of half-compressible files shaped as libraries.
# Usage: tests/bench/xz_threads.sh [path/to/cdm] [MB]
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MB=${2:-150}
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state.db"
: >"$CDM_CONFIG"
n=cudnn-linux-x86_64-9.1.0.70_cuda12-archive
mkdir -p "$work/$n/lib" "$work/$n/include" "$work/one" "$work/many" "$work/fast"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' >"$work/$n/include/cudnn_version.h"
for i in 1 2 3 4; do
  # random bytes as base64 (compresses to 3/4) and zeros: about as compressible as cuDNN
  (head -c $((MB * 1000000 * 3 / 8 / 4)) /dev/urandom | base64 -w0; head -c $((MB * 1000000 / 8)) /dev/zero) \
    >"$work/$n/lib/libcudnn_part$i.so.9.1.0"
done
echo stand-in >"$work/$n/LICENSE"
tar -C "$work" -cf "$work/$n.tar" "$n"
xz -T1 -6 -c "$work/$n.tar" >"$work/one/$n.tar.xz"
xz -T0 -6 --block-size=8MiB -c "$work/$n.tar" >"$work/many/$n.tar.xz"
# as tests/pack_real_cudnn.sh packs the real cuDNN: level 1, xz's own 3 MiB blocks
xz -T0 -1 -c "$work/$n.tar" >"$work/fast/$n.tar.xz"
rm -rf "$work/${n:?}"
median() { sort -n | sed -n 2p; }
ms() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - s) / 1000000)); }
cdm_install() { rm -rf "$work/s"; CDM_ROOT=$work/s "$CDM" install -q "$1"; }
tar_xz() { rm -rf "$work/x" && mkdir "$work/x" && tar -I 'xz -T0' -xf "$1" -C "$work/x" && sync; }
floor() { rm -rf "$work/x" && mkdir "$work/x" && tar -xf "$work/$n.tar" -C "$work/x" && sync; }
bsd() { rm -rf "$work/x" && mkdir "$work/x" && bsdtar -xf "$1" -C "$work/x" && sync; }
for kind in one many fast; do
  a=$work/$kind/$n.tar.xz
  c=() t=() b=() f=()
  for _round in 1 2 3; do
    c+=("$(ms cdm_install "$a")")
    f+=("$(ms floor)")
    t+=("$(ms tar_xz "$a")")
    command -v bsdtar >/dev/null && b+=("$(ms bsd "$a")")
  done
  tc=$(printf '%s\n' "${c[@]}" | median)
  tt=$(printf '%s\n' "${t[@]}" | median)
  tf=$(printf '%s\n' "${f[@]}" | median)
  tb=$( ((${#b[@]})) && printf '%s\n' "${b[@]}" | median || echo 0)
  blocks=$(xz --robot --list "$a" | awk '$1 == "totals" {print $3}')
  printf '%-4s (%3s blocks): cdm install %6d ms | tar -I "xz -T0" + sync %6d ms (cdm %.2fx)' \
    "$kind" "$blocks" "$tc" "$tt" "$(python3 -c "print($tc / $tt)")"
  if [ "$tb" -gt 0 ]; then
    printf ' | bsdtar + sync %6d ms (cdm %.2fx)\n' "$tb" "$(python3 -c "print($tc / $tb)")"
  else
    printf ' | no bsdtar here\n'
  fi
  printf '%20s floor (the .tar + sync) %6d ms (cdm %.2fx)\n' "" "$tf" "$(python3 -c "print($tc / $tf)")"
  if [ -x /usr/bin/time ]; then
    rm -rf "$work/s"
    CDM_ROOT=$work/s /usr/bin/time -f '%M' -o "$work/peak" "$CDM" install -q "$a"
    printf '%20s peak memory of cdm install: %d MiB\n' "" $(($(cat "$work/peak") / 1024))
  fi
done
echo "$(nproc) cores"
