# A real NVIDIA cuDNN for the scenarios that need real libraries, sourced after lib.sh:
# real_cudnn_root prints a CUDA-style folder (include/, lib/, dist-info/) holding it: the
# machine's /usr/local/cuda* where it has one, else NVIDIA's nvidia-cudnn-cu12 9.1.0.70 wheel
# from the package registry (665 MB, downloaded once into $CDM_WHEEL_CACHE, default
# /var/cache/cdm-wheels) unpacked into the scratch folder. Exit status 77, with the reason on
# stderr, when neither can be had.
REAL_WHEEL_VERSION=9.1.0.70

# real_wheel TAG: prints the path of NVIDIA's nvidia-cudnn-cu12 $REAL_WHEEL_VERSION wheel for
# the wheel platform TAG (manylinux2014_x86_64: this machine's; win_amd64: Windows' DLLs),
# downloaded from the package registry once into $CDM_WHEEL_CACHE. One download at a time
# (a lock beside the wheels), into a folder of its own, so scenarios run side by side fetch
# it once and never see half a wheel. Exit status 77, with the reason on stderr, when it
# cannot be had.
real_wheel() {
  local tag=$1 cache py part why
  cache=$(wheel_cache)
  local whl=$cache/nvidia_cudnn_cu12-$REAL_WHEEL_VERSION-py3-none-$tag.whl
  local platform=()
  # another platform's wheel is asked for by name (pip picks this machine's by default)
  [ "$tag" = win_amd64 ] && platform=(--platform win_amd64 --python-version 3.11)
  if [ ! -f "$whl" ]; then
    py=$(command -v python3) || { echo "no python3 to fetch NVIDIA's $tag wheel" >&2; return 77; }
    "$py" -m pip --version >/dev/null 2>&1 ||
      { echo "no pip for $py to fetch NVIDIA's $tag wheel (python3-pip)" >&2; return 77; }
    mkdir -p "$cache" || { echo "cannot make the wheel cache '$cache'" >&2; return 77; }
    why=$(registry_reachable) || { echo "nvidia-cudnn-cu12 $REAL_WHEEL_VERSION ($tag) cannot be downloaded: $why" >&2; return 77; }
    part=$cache/.part-$tag-$$
    (
      command -v flock >/dev/null && flock 9
      [ -f "$whl" ] && exit 0
      mkdir -p "$part" && timeout 300 "$py" -m pip download --quiet --disable-pip-version-check --retries 1 --timeout 15 \
        --no-deps --only-binary=:all: "${platform[@]}" -d "$part" "nvidia-cudnn-cu12==$REAL_WHEEL_VERSION" >&2 &&
        mv "$part/$(basename "$whl")" "$whl"
    ) 9>"$cache/.lock"
    rm -rf "$part"
    [ -f "$whl" ] || { echo "nvidia-cudnn-cu12 $REAL_WHEEL_VERSION ($tag) could not be had from the package registry within 300 s" >&2; return 77; }
  fi
  printf '%s\n' "$whl"
}

real_cudnn_root() {
  local d
  for d in /usr/local/cuda /usr/local/cuda-*; do
    if [ -f "$d/include/cudnn_version.h" ] && ls "$d"/lib*/libcudnn.so.* >/dev/null 2>&1; then
      printf '%s\n' "$d"
      return 0
    fi
  done
  local whl py
  whl=$(real_wheel manylinux2014_x86_64 2>"$SCRATCH/wheel.err") ||
    { echo "no real cuDNN here, and $(tail -1 "$SCRATCH/wheel.err")" >&2; return 77; }
  py=$(command -v python3)
  local root=$SCRATCH/real-cudnn-root
  if [ ! -d "$root/lib" ]; then
    # shellcheck disable=SC2015 # the fallback is meant to run when either step fails
    mkdir -p "$root/dist-info" "$SCRATCH/wheel" &&
      "$py" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$SCRATCH/wheel" ||
      { echo "cannot unpack '$whl'" >&2; return 77; }
    # shellcheck disable=SC2015 # the fallback is meant to run when either step fails
    mv "$SCRATCH/wheel/nvidia/cudnn/include" "$root/include" &&
      mv "$SCRATCH/wheel/nvidia/cudnn/lib" "$root/lib" &&
      mv "$SCRATCH/wheel"/nvidia_cudnn_cu12-*.dist-info "$root/dist-info/" ||
      { echo "'$whl' does not have NVIDIA's layout (nvidia/cudnn/include, lib)" >&2; return 77; }
    rm -rf "$SCRATCH/wheel"
  fi
  printf '%s\n' "$root"
}

# real_cudnn_version ROOT: the four-part version of the cuDNN in ROOT (real_cudnn_root's):
# A.B.C from its cudnn_version.h, the build number from the wheel's METADATA beside it (a
# toolkit's copy does not say it: 1 then).
real_cudnn_version() {
  local abc build
  abc=$(sed -n 's/^#define CUDNN_\(MAJOR\|MINOR\|PATCHLEVEL\) *\([0-9]*\).*/\2/p' "$1/include/cudnn_version.h" | paste -sd.)
  build=$(sed -n 's/^Version: [0-9]*\.[0-9]*\.[0-9]*\.\([0-9]*\).*/\1/p' "$1"/dist-info/*/METADATA 2>/dev/null | head -1)
  printf '%s.%s\n' "$abc" "${build:-1}"
}
