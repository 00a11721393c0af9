#!/bin/bash
# cdm verify of one install against what a user would run instead: openssl dgst -sha256 and
# sha256sum of the same files in one process, and sha256sum in one process per core
# (xargs -P), in turns, medians of 3.
# The install holds files shaped as cuDNN 9's libraries (one as large as the rest
# together), MB megabytes in all (default 480, about the real 9.19's 494 MB).
# Usage: tests/bench/verify.sh [path/to/cdm] [MB]
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MB=${2:-480}
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_ROOT="$work/store" CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state.db"
: >"$CDM_CONFIG"
name=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
mkdir -p "$work/$name/lib" "$work/$name/include"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' >"$work/$name/include/cudnn_version.h"
# shares of MB per library, largest first (as engines_precompiled dwarfs the rest)
i=0
for part in _engines_precompiled _adv _cnn _engines_runtime_compiled _graph _heuristic _ops ""; do
  share=$((i == 0 ? MB / 2 : MB / 14))
  head -c "${share}M" /dev/urandom >"$work/$name/lib/libcudnn$part.so.9.19.0"
  i=$((i + 1))
done
echo stand-in >"$work/$name/LICENSE"
tar -C "$work" -cf "$work/$name.tar" "$name" && xz -T0 -0 "$work/$name.tar"
"$CDM" install -q "$work/$name.tar.xz"
dir=$CDM_ROOT/9.19.0.56-cuda13
files=$(find "$dir" -type f | sort)
cores=$(nproc)
sync
median() { sort -n | sed -n 2p; }
run() { # seconds of one run of "$@"
  local s
  s=$(date +%s%N)
  "$@" >/dev/null
  echo $((($(date +%s%N) - s) / 1000000))
}
c=() s1=() sp=() o1=()
for _round in 1 2 3; do
  c+=("$(run "$CDM" verify 9.19)")
  o1+=("$(run sh -c "echo '$files' | xargs openssl dgst -sha256")")
  s1+=("$(run sh -c "echo '$files' | xargs sha256sum")")
  sp+=("$(run sh -c "echo '$files' | xargs -n1 -P$cores sha256sum")")
done
tc=$(printf '%s\n' "${c[@]}" | median)
t1=$(printf '%s\n' "${s1[@]}" | median)
tp=$(printf '%s\n' "${sp[@]}" | median)
to=$(printf '%s\n' "${o1[@]}" | median)
printf 'files: %s MB in %s files, %s cores (page cache warm)\n' "$MB" "$(echo "$files" | wc -l)" "$cores"
printf 'cdm verify                %6d ms\n' "$tc"
printf 'openssl dgst, one process %6d ms  (cdm %.2fx; SHA-NI where the CPU has it)\n' "$to" "$(python3 -c "print($tc / $to)")"
printf 'sha256sum, one process    %6d ms  (cdm %.2fx)\n' "$t1" "$(python3 -c "print($tc / $t1)")"
printf 'sha256sum, %2d processes   %6d ms  (cdm %.2fx)\n' "$cores" "$tp" "$(python3 -c "print($tc / $tp)")"
