#!/usr/bin/env bash
# The main job on a default sample, with the cdm given (the README's first command passes
# the installed one): install a cuDNN archive into a temporary store, link a project to it,
# activate it in a subshell, then which, list and doctor. The archive is this machine's
# real cuDNN, packed as NVIDIA lays it out, when there is one (/usr/local/cuda*), else a
# generated archive of the real layout. Nothing outside a temporary folder is touched.
#
#   tests/demo.sh [BUILD_DIR [CDM]]
set -euo pipefail
build=${1:-build}
cdm=${2:-$build/cdm}
here=$(cd "$(dirname "$0")" && pwd)
case $cdm in */*) cdm=$(cd "$(dirname "$cdm")" && pwd)/$(basename "$cdm") ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/cdm-demo.XXXXXX")
# The store's files are read-only: removed as `cdm store delete` removes a store.
. "$here/rm_tree.sh"
trap 'rm_tree "$work"' EXIT
# A store, configuration and state of its own: the user's are left alone.
export CDM_ROOT=$work/store CDM_CONFIG=$work/config.ini XDG_DATA_HOME=$work/data \
  XDG_STATE_HOME=$work/state CDM_FETCH_BASE=off
: >"$CDM_CONFIG"

echo "cdm: $(command -v "$cdm") ($("$cdm" --version))"
if archive=$("$here/pack_real_cudnn.sh" "$work/archives" 2>"$work/why"); then
  echo "sample: the machine's real cuDNN, packed as $(basename "$archive")"
else
  archive=$work/archives/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
  mkdir -p "$work/archives"
  "$build/tests/make_fixture" "$archive" >/dev/null
  echo "sample: a generated archive of NVIDIA's layout ($(cat "$work/why"))"
fi
project=$work/project
mkdir -p "$project"
run() { printf '+ %s\n' "$*"; "$@"; }
run "$cdm" install "$archive"
version=$(basename "$archive" | sed -E 's/^cudnn-[a-z]+-[a-z0-9_]+-([0-9.]+)_cuda.*/\1/')
run "$cdm" link "$project" "$version"
echo "+ (cd project && eval \"\$(cdm activate)\" && echo \$CUDNN_PATH)"
(cd "$project" && eval "$("$cdm" activate --shell bash)" && echo "CUDNN_PATH=$CUDNN_PATH")
(cd "$project" && run "$cdm" which)
run "$cdm" list
# The doctor exits 1 when one of its checks fails (with the generated sample's stand-in
# files, its load checks do, as it says): shown, not fatal.
(cd "$project" && run "$cdm" doctor) || echo "(doctor: a check failed; its lines above say which and why)"
echo "demo: done: installed, linked, activated, listed and examined with $cdm"
