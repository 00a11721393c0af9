#!/bin/bash
# cdm sbom of one install against what a user would run instead to hash the same files for
# a bill (sha256sum, then sha1sum, each in one process), and the install of a second build
# whose libraries are the same bytes (stored once, as hard links) against the first install
# (every byte written), in turns, medians of 3. The install holds files shaped as cuDNN 9's
# libraries, MB megabytes in all (default 480, about the real 9.19's 494 MB).
# Usage: tests/bench/sbom.sh [path/to/cdm] [MB]
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MB=${2:-480}
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_ROOT="$work/store" CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state.db"
: >"$CDM_CONFIG"
# pack CUDA: the same libraries as a cuda12 and a cuda13 archive of 9.19.0.56
pack() {
  local name=cudnn-linux-x86_64-9.19.0.56_cuda$1-archive
  mkdir -p "$work/$name/include"
  cp -r "$work/libs" "$work/$name/lib"
  printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' >"$work/$name/include/cudnn_version.h"
  echo stand-in >"$work/$name/LICENSE"
  tar -C "$work" -cf "$work/$name.tar" "$name" && xz -T0 -0 "$work/$name.tar"
  echo "$work/$name.tar.xz"
}
mkdir -p "$work/libs"
i=0
for part in _engines_precompiled _adv _cnn _engines_runtime_compiled _graph _heuristic _ops ""; do
  share=$((i == 0 ? MB / 2 : MB / 14))
  head -c "${share}M" /dev/urandom >"$work/libs/libcudnn$part.so.9.19.0"
  i=$((i + 1))
done
a12=$(pack 12)
a13=$(pack 13)
"$CDM" install -q "$a12"
dir=$CDM_ROOT/9.19.0.56-cuda12
files=$(find "$dir" -type f | sort)
sync
median() { sort -n | sed -n 2p; }
run() { # milliseconds of one run of "$@"
  local s
  s=$(date +%s%N)
  "$@" >/dev/null
  echo $((($(date +%s%N) - s) / 1000000))
}
b=() h=() first=() second=()
for _round in 1 2 3; do
  b+=("$(run "$CDM" sbom 9.19.0.56-cuda12)")
  h+=("$(run sh -c "echo '$files' | xargs sha256sum && echo '$files' | xargs sha1sum")")
  second+=("$(run "$CDM" install -q "$a13")")
  "$CDM" remove -q 9.19.0.56-cuda13
  "$CDM" remove -q 9.19.0.56-cuda12
  first+=("$(run "$CDM" install -q "$a12")")
done
"$CDM" install -q "$a13"
tb=$(printf '%s\n' "${b[@]}" | median)
th=$(printf '%s\n' "${h[@]}" | median)
t1=$(printf '%s\n' "${first[@]}" | median)
t2=$(printf '%s\n' "${second[@]}" | median)
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
printf 'files: %s MB in %s files, %s cores (page cache warm)\n' "$MB" "$(echo "$files" | wc -l)" "$(nproc)"
printf 'cdm sbom (SHA-256 and SHA-1, one read)   %6d ms\n' "$tb"
printf 'sha256sum, then sha1sum                  %6d ms  (cdm %sx)\n' "$th" "$(ratio "$tb" "$th")"
printf 'install of the cuda12 build (all new)    %6d ms\n' "$t1"
printf 'install of the cuda13 build (shared)     %6d ms  (%sx the first)\n' "$t2" "$(ratio "$t2" "$t1")"
printf 'du of both installs: %s (each alone: %s)\n' "$(du -sh "$CDM_ROOT" | cut -f1)" "$(du -sh "$dir" | cut -f1)"
