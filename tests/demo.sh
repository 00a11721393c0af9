#!/usr/bin/env bash
# The main job on a default sample: install a cuDNN archive into a temporary store and
# list it. The archive is this machine's real cuDNN, packed as NVIDIA lays it out, when
# there is one (/usr/local/cuda*), else a generated archive of the real layout.
#
#   tests/demo.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
cdm=$build/cdm
work=$(mktemp -d "${TMPDIR:-/tmp}/cdm-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

if archive=$("$here/pack_real_cudnn.sh" "$work/archives" 2>"$work/why"); then
  echo "sample: the machine's real cuDNN, packed as $(basename "$archive")"
else
  archive=$work/archives/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
  mkdir -p "$work/archives"
  "$build/tests/make_fixture" "$archive"
  echo "sample: a generated archive ($(cat "$work/why"))"
fi
set -x
"$cdm" --root "$work/store" install "$archive"
"$cdm" --root "$work/store" list
