#!/bin/bash
# cdm install of NVIDIA's Debian packages of a real cuDNN (the runtime and headers pair,
# built with dpkg-deb from a wheel's files in the layout of NVIDIA's CUDA repository: real
# libraries, xz as NVIDIA compresses them) against what a user runs instead on the same
# packages: dpkg-deb -x of both + sync, which checks no md5sums; and md5sum -c of the files
# dpkg-deb wrote, the check cdm makes. Fresh folders each run, medians of 3, in turn, page
# cache warm.
#
#   tests/bench/deb.sh [path/to/cdm] [WHEEL|DIR]
#
# WHEEL: an nvidia-cudnn-cu* wheel (default: the first Linux one in /var/cache/cdm-wheels);
# DIR: a folder holding include/ and lib/ of a real cuDNN (a venv's nvidia/cudnn).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
wheel=${2:-$(ls /var/cache/cdm-wheels/nvidia_cudnn_cu*-manylinux*_x86_64.whl 2>/dev/null | head -n1 || true)}
[ -e "$wheel" ] || { echo "no cuDNN wheel: pass one (pip download nvidia-cudnn-cu12)" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "no dpkg-deb" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench-deb.XXXXXX")
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_CONFIG=$work/config.ini CDM_STATE=$work/state.db
: >"$CDM_CONFIG"
if [ -d "$wheel" ]; then
  root=$wheel cuda=${CUDA:-13}
else
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$work/whl"
  root=$work/whl/nvidia/cudnn
  cuda=$(basename "$wheel" | sed -n 's/^nvidia_cudnn_cu\([0-9]*\)-.*/\1/p')
fi
v=$(sed -n 's/^#define CUDNN_\(MAJOR\|MINOR\|PATCHLEVEL\) *\([0-9]*\).*/\2/p' "$root/include/cudnn_version.h" | paste -sd.)
mkdir -p "$work/debs"
# NVIDIA's packages are xz at its default level; the test maker uses -z1 for speed
sed 's/\["-z1"\]/[]/' "$here/make_deb.py" >"$work/make_deb.py"
rt=$(python3 "$work/make_deb.py" "$work/debs" "$v.1" "$cuda" runtime --from "$root")
hd=$(python3 "$work/make_deb.py" "$work/debs" "$v.1" "$cuda" headers --from "$root")
rm -rf "$work/whl"
fresh() { chmod -R u+w "$work/x" 2>/dev/null || true; rm -rf "$work/x" && mkdir "$work/x" && sync; }
ms() { local s; fresh; s=$(date +%s%N); "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }; echo $((($(date +%s%N) - s) / 1000000)); }
cdm_pair() { CDM_ROOT=$work/x/s "$CDM" install -q "$rt" "$hd"; }
dpkg_sync() { dpkg-deb -x "$rt" "$work/x" && dpkg-deb -x "$hd" "$work/x" && sync; }
dpkg_md5() {
  dpkg_sync
  for p in "$rt" "$hd"; do
    dpkg-deb --ctrl-tarfile "$p" | tar -xOf - ./md5sums | (cd "$work/x" && md5sum --quiet -c -)
  done
}
tools="cdm_pair dpkg_sync dpkg_md5"
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
CDM_ROOT=$work/x/s "$CDM" install --verbose "$rt" "$hd" 2>&1 | sed -n 's/^ *unpacked: /cdm: /p'
echo "$(nproc) cores; $(basename "$rt"): $(($(stat -c %s "$rt") / 1048576)) MiB, $(basename "$hd")"
printf '%-44s %8s %12s\n' "" "ms" "vs dpkg-deb"
for tool in $tools; do
  case $tool in
    cdm_pair) label="cdm install RUNTIME.deb HEADERS.deb" ;;
    dpkg_sync) label="dpkg-deb -x both + sync" ;;
    dpkg_md5) label="dpkg-deb -x both + sync + md5sum -c" ;;
  esac
  printf '%-44s %8d %12s\n' "$label" "${m[$tool]}" "$(ratio "${m[$tool]}" "${m[dpkg_sync]}")"
done
