#!/bin/bash
# cdm install of NVIDIA's real cuDNN wheel against what a user runs instead on the same
# wheel: pip install --no-deps (into a target folder, + sync), Python's zipfile + sync and
# bsdtar -x + sync; and cdm install of the wheel's folder as pip left it (a venv's copy)
# against cp -a + sync. Fresh folders each run, medians of 3, in turn, page cache warm.
#
#   tests/bench/wheel.sh [path/to/cdm] [WHEEL]
#
# WHEEL: an nvidia-cudnn-cu* wheel (default: the first Linux one in /var/cache/cdm-wheels).
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
wheel=${2:-$(ls /var/cache/cdm-wheels/nvidia_cudnn_cu*-manylinux*_x86_64.whl 2>/dev/null | head -n1 || true)}
[ -f "$wheel" ] || { echo "no cuDNN wheel: pass one (pip download nvidia-cudnn-cu12)" >&2; exit 1; }
python3 -m pip --version >/dev/null 2>&1 || { echo "no pip for python3" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench-wheel.XXXXXX")
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_CONFIG=$work/config.ini CDM_STATE=$work/state.db
: >"$CDM_CONFIG"
# the wheel as pip lays it out, for the folder form
python3 -m pip install -q --no-deps --no-compile --disable-pip-version-check --target "$work/site" "$wheel"
fresh() { chmod -R u+w "$work/x" 2>/dev/null || true; rm -rf "$work/x" && mkdir "$work/x" && sync; }
ms() { local s; fresh; s=$(date +%s%N); "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }; echo $((($(date +%s%N) - s) / 1000000)); }
cdm_wheel() { CDM_ROOT=$work/x/s "$CDM" install -q "$wheel"; }
cdm_folder() { CDM_ROOT=$work/x/s "$CDM" install -q "$work/site"; }
pip_sync() { python3 -m pip install -q --no-deps --no-compile --disable-pip-version-check --target "$work/x/t" "$wheel" && sync; }
py_sync() { python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$work/x" && sync; }
bsd_sync() { bsdtar -xf "$wheel" -C "$work/x" && sync; }
cp_sync() { cp -a "$work/site/nvidia/cudnn" "$work/x/" && sync; }
tools="cdm_wheel pip_sync py_sync cdm_folder cp_sync"
command -v bsdtar >/dev/null && tools="$tools bsd_sync"
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
CDM_ROOT=$work/x/s "$CDM" install --verbose "$wheel" 2>&1 | sed -n 's/^ *unpacked: /cdm: /p'
echo "$(nproc) cores; $(basename "$wheel"): $(($(stat -c %s "$wheel") / 1048576)) MiB"
printf '%-40s %8s %10s\n' "" "ms" "vs pip"
for tool in $tools; do
  case $tool in
    cdm_wheel) label="cdm install WHEEL" ;;
    pip_sync) label="pip install --no-deps --target + sync" ;;
    py_sync) label="python zipfile + sync" ;;
    bsd_sync) label="bsdtar -x + sync" ;;
    cdm_folder) label="cdm install DIR (pip's layout)" ;;
    cp_sync) label="cp -a nvidia/cudnn + sync" ;;
  esac
  printf '%-40s %8d %10s\n' "$label" "${m[$tool]}" "$(ratio "${m[$tool]}" "${m[pip_sync]}")"
done
