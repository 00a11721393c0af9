#!/usr/bin/env bash
# Packs the machine's real cuDNN (in /usr/local/cuda, or a wheel's) into an archive of layout C,
# as NVIDIA names and lays it out: cudnn-linux-<arch>-<A.B.C.D>_cuda<N>-archive.tar.xz.
#
#   pack_real_cudnn.sh OUT_DIR [--full] [--cuda-root DIR] [--build N] [--cuda N]
#
# Without --full only the headers and libcudnn.so.9 (the 128 KiB front library that
# answers cudnnGetVersion) are packed, so tests stay fast; --full packs every libcudnn*
# (about 470 MB, for benchmarks). Prints the archive's path. Exits 77 with the reason on
# stderr when there is no real cuDNN here, so callers can skip. --build and --cuda give the
# build number and CUDA major where no wheel's dist-info or cuda-N folder name says them
# (a Debian-style cuDNN in /usr/lib/x86_64-linux-gnu).
set -euo pipefail

out_dir=${1:?usage: pack_real_cudnn.sh OUT_DIR [--full] [--cuda-root DIR]}
shift
full=0
cuda_root=""
build=""
cuda=""
while [ $# -gt 0 ]; do
  case $1 in
    --full) full=1 ;;
    --cuda-root) cuda_root=$2; shift ;;
    --build) build=$2; shift ;;
    --cuda) cuda=$2; shift ;;
    *) echo "pack_real_cudnn: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [ -z "$cuda_root" ]; then
  for d in /usr/local/cuda /usr/local/cuda-*; do
    if [ -f "$d/include/cudnn_version.h" ]; then cuda_root=$d; break; fi
  done
fi
if [ -z "$cuda_root" ] || [ ! -f "$cuda_root/include/cudnn_version.h" ]; then
  echo "no real cuDNN here (no /usr/local/cuda*/include/cudnn_version.h)" >&2
  exit 77
fi
lib=""
for d in lib lib64 targets/x86_64-linux/lib; do
  if ls "$cuda_root/$d"/libcudnn.so.* >/dev/null 2>&1; then lib=$cuda_root/$d; break; fi
done
if [ -z "$lib" ]; then
  echo "no libcudnn.so.* beside '$cuda_root/include/cudnn_version.h'" >&2
  exit 77
fi

macro() { sed -n "s/^#define $1 \\([0-9]*\\).*/\\1/p" "$cuda_root/include/cudnn_version.h" | head -n1; }
major=$(macro CUDNN_MAJOR)
minor=$(macro CUDNN_MINOR)
patch=$(macro CUDNN_PATCHLEVEL)
# The build number is not in the header: the wheel's dist-info has it, else use 0.
[ -n "$build" ] || build=$(ls -d "$cuda_root"/dist-info/nvidia_cudnn_cu*-"$major.$minor.$patch".*.dist-info 2>/dev/null |
  sed -n 's/.*-[0-9]*\.[0-9]*\.[0-9]*\.\([0-9]*\)\.dist-info$/\1/p' | head -n1)
[ -n "$cuda" ] || cuda=$(ls -d "$cuda_root"/dist-info/nvidia_cudnn_cu*.dist-info 2>/dev/null |
  sed -n 's/.*nvidia_cudnn_cu\([0-9]*\)-.*/\1/p' | head -n1)
if [ -z "$cuda" ]; then
  cuda=$(basename "$(readlink -f "$cuda_root")" | sed -n 's/^cuda-\([0-9]*\).*/\1/p')
fi
case $(uname -m) in
  x86_64) arch=x86_64 ;;
  aarch64) arch=sbsa ;;
  *) arch=$(uname -m) ;;
esac
name="cudnn-linux-$arch-$major.$minor.$patch.${build:-0}_cuda${cuda:-12}-archive"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/include" "$stage/$name/lib"
cp -P "$cuda_root"/include/cudnn*.h "$stage/$name/include/"
if [ "$full" = 1 ]; then
  cp -P "$lib"/libcudnn*.so* "$stage/$name/lib/"
else
  cp -P "$lib/libcudnn.so.$major" "$stage/$name/lib/"
  ln -s "libcudnn.so.$major" "$stage/$name/lib/libcudnn.so"
fi
echo "packed from $cuda_root for cdm tests" >"$stage/$name/LICENSE"
mkdir -p "$out_dir"
tar -C "$stage" -cf - "$name" | xz -T0 -1 >"$out_dir/$name.tar.xz"
echo "$out_dir/$name.tar.xz"
