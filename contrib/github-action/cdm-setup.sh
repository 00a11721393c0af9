#!/usr/bin/env bash
# The steps of the cdm GitHub Action (action.yml), one per word:
#   tool     put cdm on the job's PATH: downloaded from $CDM_URL (checked against
#            $CDM_SHA256 when given) into the runner's tool cache, or the one on PATH
#   resolve  the archive cdm would download for $CUDNN_VERSION ($CUDNN_CUDA): its SHA-256
#            and the store folder, as step outputs (the cache's key and path)
#   install  cdm install into that store (nothing to do when the cache restored it), then
#            CUDNN_PATH, CDM_ACTIVE, CUDA_PATH (only when the job has none: a CUDA setup
#            step's own stays) and the library folder on LD_LIBRARY_PATH (Linux) or PATH
#            (Windows) for the job's later steps, and the install's id and folder as outputs
# It writes only to the files GitHub names: $GITHUB_PATH, $GITHUB_ENV, $GITHUB_OUTPUT.
set -euo pipefail

fail() {
  echo "::error::cdm: $*" >&2
  exit 1
}
windows() { [ "${RUNNER_OS:-}" = Windows ] || [ -n "${WINDIR:-}" ]; }
exe() { if windows; then echo cdm.exe; else echo cdm; fi; }
cuda_args() { if [ -n "${CUDNN_CUDA:-}" ]; then echo --cuda "$CUDNN_CUDA"; fi; }
store() { echo "${CDM_ROOT:-${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/cdm-store}"; }
# json EXPR: a Python expression over the document on standard input, d
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
export_env() { printf '%s=%s\n' "$1" "$2" >>"${GITHUB_ENV:?GITHUB_ENV is not set}"; }
output() { printf '%s=%s\n' "$1" "$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"; }

tool() {
  if [ -z "${CDM_URL:-}" ]; then
    command -v "$(exe)" >/dev/null || fail "no cdm on PATH and no cdm-url to download it from"
    return
  fi
  local name dir
  if windows; then name=cdm-windows-x86_64.exe; else name=cdm-linux-x86_64; fi
  dir=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/cdm/bin
  mkdir -p "$dir"
  curl -fsSL --retry 3 --max-time 300 -o "$dir/$(exe).part" "${CDM_URL%/}/$name" ||
    fail "cannot download cdm from '${CDM_URL%/}/$name'"
  if [ -n "${CDM_SHA256:-}" ]; then
    local got
    got=$(sha256sum "$dir/$(exe).part" | cut -d' ' -f1)
    [ "$got" = "$CDM_SHA256" ] || fail "the downloaded cdm has SHA-256 $got, not $CDM_SHA256"
  fi
  chmod +x "$dir/$(exe).part" && mv "$dir/$(exe).part" "$dir/$(exe)"
  echo "$dir" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
}

resolve() {
  [ -n "${CUDNN_VERSION:-}" ] || fail "give the cuDNN version (with: version)"
  local doc sha
  # shellcheck disable=SC2046 # the optional --cuda N is two words
  doc=$("$(exe)" available "$CUDNN_VERSION" $(cuda_args) --json) ||
    fail "cdm cannot tell which archive is cuDNN $CUDNN_VERSION"
  sha=$(printf '%s' "$doc" | json 'd[-1]["sha256"] if d else ""')
  [ -n "$sha" ] || fail "no archive of cuDNN $CUDNN_VERSION for this runner"
  output sha256 "$sha"
  output store "$(store)"
}

# the newest install of $CUDNN_VERSION ($CUDNN_CUDA): "id<TAB>folder<TAB>library folder"
installed() {
  "$(exe)" list --json | python3 -c '
import json, os, sys
want, cuda = os.environ["CUDNN_VERSION"], os.environ.get("CUDNN_CUDA", "")
found = [i for i in json.load(sys.stdin)
         if (i["version"] + ".").startswith(want + ".") and (not cuda or str(i["cuda"]) == cuda)]
if found:
    i = found[-1]
    sep = "\\" if os.environ.get("RUNNER_OS") == "Windows" else "/"
    sub = i["bin_dir"] if os.environ.get("RUNNER_OS") == "Windows" else i["lib_dir"]
    print(i["id"], i["path"], i["path"] + sep + sub.replace("/", sep), sep="\t")'
}

install() {
  local id path lib
  export CDM_ROOT
  CDM_ROOT=$(store)
  # shellcheck disable=SC2046 # the optional --cuda N is two words
  "$(exe)" install "$CUDNN_VERSION" $(cuda_args) || fail "cdm install $CUDNN_VERSION failed"
  IFS=$'\t' read -r id path lib < <(installed) || fail "cdm lists no install of $CUDNN_VERSION"
  export_env CUDNN_PATH "$path"
  export_env CDM_ACTIVE "$id"
  [ -n "${CUDA_PATH:-}" ] || export_env CUDA_PATH "$path"
  if windows; then
    echo "$lib" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
  else
    export_env LD_LIBRARY_PATH "$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  output install "$id"
  output path "$path"
  echo "cdm: cuDNN $id in '$path'"
}

case ${1:-} in
tool | resolve | install) "$1" ;;
*) fail "usage: cdm-setup.sh tool|resolve|install" ;;
esac
