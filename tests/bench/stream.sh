#!/bin/bash
# `cdm install VERSION` from a loopback mirror whose server sends at a link's speed (1 Gb/s,
# 100 Mb/s), the .tar.xz unpacked while it arrives, against the larger of what its two
# halves take alone: the download (`cdm fetch VERSION --into DIR`, from the same mirror at
# the same speed) and the install from the local file (`cdm install FILE`). The goal is at
# most 1.1x. Medians of 3, in turn, fresh folders. The archives are a tar of MB megabytes
# (default 150) of half-compressible files shaped as libraries (as xz_threads.sh makes),
# packed as one xz block (xz -6) and as many (xz -T0 -1, xz's 3 MiB blocks); or the tar of
# ARCHIVE, a real cuDNN of NVIDIA's name and layout (tests/pack_real_cudnn.sh), packed as one
# block (xz -1, faster to make) and as many. STREAM_RATES changes the speeds and the rounds:
# BYTES_A_SECOND:LABEL[:ROUNDS] ... (a median of 1 is that run). CDM_BEFORE=path/to/another/cdm
# adds its install from the local file, in the same rounds (an earlier build: no slower?).
# A third kind is the same tree as a zip (deflate level 6, tests/bench/pack_zip.py; on Linux
# a zip of NVIDIA's name installs as the .tar.xz does), its directory and headers asked for
# by range ahead of the download. STREAM_KINDS="one many zip" chooses among them.
# Usage: tests/bench/stream.sh [path/to/cdm] [MB] [ARCHIVE]
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MB=${2:-150}
ARCHIVE=${3:-}
here=$(dirname "${BASH_SOURCE[0]}")
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cdm-bench.XXXXXX")
. "$here/../rm_tree.sh"
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm_tree "$work"' EXIT
export CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state.db"

# the archives to serve: name, then one folder each holding it
if [ -n "$ARCHIVE" ]; then
  n=$(basename "$ARCHIVE" .tar.xz)
  mkdir -p "$work/one" "$work/many"
  xz -dc "$ARCHIVE" | xz -T1 -1 >"$work/one/$n.tar.xz"
  xz -dc "$ARCHIVE" | xz -T0 -1 >"$work/many/$n.tar.xz"
else
  n=cudnn-linux-x86_64-9.1.0.70_cuda12-archive
  mkdir -p "$work/$n/lib" "$work/$n/include" "$work/one" "$work/many"
  printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' \
    >"$work/$n/include/cudnn_version.h"
  for i in 1 2 3 4; do
    (head -c $((MB * 1000000 * 3 / 8 / 4)) /dev/urandom | base64 -w0
      head -c $((MB * 1000000 / 8)) /dev/zero) >"$work/$n/lib/libcudnn_part$i.so.9.1.0"
  done
  echo stand-in >"$work/$n/LICENSE"
  tar -C "$work" -cf - "$n" | xz -T1 -6 >"$work/one/$n.tar.xz"
  tar -C "$work" -cf - "$n" | xz -T0 -1 >"$work/many/$n.tar.xz"
  rm -rf "${work:?}/$n"
fi
# the zip: the one-block tar's tree, packed as NVIDIA packs its zips
mkdir -p "$work/zip" "$work/tree"
xz -dc "$work/one/$n.tar.xz" | tar -C "$work/tree" -xf -
python3 "$here/pack_zip.py" "$work/tree/$n" "$work/zip/$n.zip" >/dev/null
rm -rf "$work/tree"
file_of() { if [ "$1" = zip ]; then echo "$work/zip/$n.zip"; else echo "$work/$1/$n.tar.xz"; fi; }
version=$(echo "$n" | sed -E 's/^cudnn-[a-z0-9_-]+-([0-9]+\.[0-9]+\.[0-9]+)\.[0-9]+_cuda([0-9]+).*/\1 \2/')
label=${version% *} cuda=${version#* }

# serve KIND at RATE bytes a second: a mirror of NVIDIA's layout, its server paced
serve() {
  [ -z "$server" ] || { kill "$server"; wait "$server" 2>/dev/null || true; }
  rm -rf "$work/mirror" "$work/port"
  python3 "$here/../mirror/make_mirror.py" "$work/mirror" "$label" \
    "linux-x86_64/cuda$cuda=$(file_of "$1")" >/dev/null
  MIRROR_RATE=$2 python3 "$here/../mirror/server.py" "$work/mirror" "$work/port" /dev/null &
  server=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  printf '[fetch]\nbase = http://127.0.0.1:%s/paced/\n' "$(cat "$work/port")" >"$CDM_CONFIG"
}
ms() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - s) / 1000000)); }
fresh() { rm -rf "$work/s" "$work/dl" "$work/state.db"; sync; }
download() { fresh; CDM_ROOT=$work/s "$CDM" fetch "$label" --cuda "$cuda" --into "$work/dl"; sync; }
local_file() { fresh; CDM_ROOT=$work/s "$CDM" install -q --platform linux-x86_64 "$1"; }
local_before() { fresh; CDM_ROOT=$work/s "$CDM_BEFORE" install -q --platform linux-x86_64 "$1"; }
streamed() { fresh; CDM_ROOT=$work/s "$CDM" install -q --platform linux-x86_64 "$label" --cuda "$cuda"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "cdm install VERSION from a loopback mirror at a link's speed, unpacked as it arrives"
for kind in ${STREAM_KINDS:-one many zip}; do
  a=$(file_of "$kind")
  blocks=" -"
  [ "$kind" = zip ] || blocks=$(xz --robot --list "$a" | awk '$1 == "totals" {print $3}')
  for rate in ${STREAM_RATES:-125000000:1Gb/s 12500000:100Mb/s}; do
    IFS=: read -r bytes speed rounds <<<"$rate"
    serve "$kind" "$bytes"
    d=() l=() s=() b=(0)
    for _round in $(seq "${rounds:-3}"); do
      d+=("$(ms download)")
      l+=("$(ms local_file "$a")")
      s+=("$(ms streamed)")
      [ -z "${CDM_BEFORE:-}" ] || b+=("$(ms local_before "$a")")
      ls -d "$work/s/$label."*"-cuda$cuda" >/dev/null 2>&1 ||
        { echo "the streamed install did not install" >&2; exit 1; }
    done
    td=$(printf '%s\n' "${d[@]}" | median)
    tl=$(printf '%s\n' "${l[@]}" | median)
    ts=$(printf '%s\n' "${s[@]}" | median)
    tb=$(printf '%s\n' "${b[@]:1}" | median)
    larger=$((td > tl ? td : tl))
    printf '%-4s %3s blocks, %7s: streamed %6d ms | download alone %6d ms | local file %6d ms | %.2fx the larger (goal 1.1x)\n' \
      "$kind" "$blocks" "$speed" "$ts" "$td" "$tl" "$(python3 -c "print($ts / $larger)")"
    [ -z "${CDM_BEFORE:-}" ] || printf '%23s earlier cdm, local file %6d ms (this one %.2fx)\n' "" "$tb" \
      "$(python3 -c "print($tl / $tb)")"
  done
done
