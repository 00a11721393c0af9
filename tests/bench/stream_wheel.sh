#!/bin/bash
# `cdm install VERSION --from pypi` of NVIDIA's cuDNN wheel from a package index on loopback
# whose server sends at a link's speed (1 Gb/s, 100 Mb/s), the wheel unpacked while it
# arrives (its dist-info read ahead by range), against the larger of what its two halves
# take alone: the download (curl, or Python's urllib as pip, from the same index at the
# same speed) and `cdm install WHEEL` from the local file. The goal is at most 1.1x. Medians
# of ROUNDS (STREAM_RATES as in stream.sh: BYTES_A_SECOND:LABEL[:ROUNDS] ...), in turn,
# fresh folders.
# Usage: tests/bench/stream_wheel.sh [path/to/cdm] WHEEL   (a real nvidia_cudnn_cu1x wheel)
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
WHEEL=$(realpath "$2")
here=$(dirname "${BASH_SOURCE[0]}")
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench.XXXXXX")
. "$here/../rm_tree.sh"
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm_tree "$work"' EXIT
export CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state.db"
name=$(basename "$WHEEL")
# nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl: version 9.19, CUDA 13
version=$(echo "$name" | sed -E 's/^nvidia_cudnn_cu[0-9]+-([0-9]+\.[0-9]+)\..*/\1/')
cuda=$(echo "$name" | sed -E 's/^nvidia_cudnn_cu([0-9]+)-.*/\1/')
python3 "$here/../mirror/make_index.py" "$work/index" simple --link "$WHEEL" >/dev/null

serve() { # RATE
  [ -z "$server" ] || { kill "$server"; wait "$server" 2>/dev/null || true; }
  rm -f "$work/port"
  MIRROR_RATE=$1 python3 "$here/../mirror/server.py" "$work/index" "$work/port" /dev/null &
  server=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  port=$(cat "$work/port")
  printf '[fetch]\nindex_url = http://127.0.0.1:%s/paced/simple/\n' "$port" >"$CDM_CONFIG"
}
ms() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - s) / 1000000)); }
fresh() { rm -rf "$work/s" "$work/dl" "$work/state.db"; sync; }
fetch_url() { # URL FILE: curl where there is one, else Python's urllib (as pip reads)
  if command -v curl >/dev/null; then curl -sf -o "$2" "$1"; else
    python3 -c 'import shutil, sys, urllib.request as u; shutil.copyfileobj(u.urlopen(sys.argv[1]), open(sys.argv[2], "wb"), 1 << 20)' "$1" "$2"
  fi
}
download() { fresh; fetch_url "http://127.0.0.1:$port/paced/packages/$name" "$work/dl"; sync; }
local_file() { fresh; CDM_ROOT=$work/s "$CDM" install -q "$WHEEL"; }
streamed() { fresh; CDM_ROOT=$work/s "$CDM" install -q "$version" --cuda "$cuda" --from pypi; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "cdm install $version --from pypi from a loopback index at a link's speed: $name"
for rate in ${STREAM_RATES:-125000000:1Gb/s 12500000:100Mb/s:1}; do
  IFS=: read -r bytes speed rounds <<<"$rate"
  serve "$bytes"
  d=() l=() s=()
  for _round in $(seq "${rounds:-3}"); do
    d+=("$(ms download)")
    l+=("$(ms local_file)")
    s+=("$(ms streamed)")
    ls -d "$work/s/$version."* >/dev/null 2>&1 || { echo "the streamed install did not install" >&2; exit 1; }
  done
  td=$(printf '%s\n' "${d[@]}" | median)
  tl=$(printf '%s\n' "${l[@]}" | median)
  ts=$(printf '%s\n' "${s[@]}" | median)
  larger=$((td > tl ? td : tl))
  printf 'wheel, %7s: streamed %6d ms | download alone %6d ms | local file %6d ms | %.2fx the larger (goal 1.1x)\n' \
    "$speed" "$ts" "$td" "$tl" "$(python3 -c "print($ts / $larger)")"
done
