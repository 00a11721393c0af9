# A real NVIDIA cuDNN for the scenarios that need real libraries, sourced after lib.sh:
# real_cudnn_root prints a CUDA-style folder (include/, lib/, dist-info/) holding it: the
# machine's /usr/local/cuda* where it has one, else NVIDIA's nvidia-cudnn-cu12 9.1.0.70 wheel
# from the package registry (665 MB, downloaded once into $CDM_WHEEL_CACHE, default
# /var/cache/cdm-wheels) unpacked into the scratch folder. Exit status 77, with the reason on
# stderr, when neither can be had.
REAL_WHEEL_VERSION=9.1.0.70
real_cudnn_root() {
  local d
  for d in /usr/local/cuda /usr/local/cuda-*; do
    if [ -f "$d/include/cudnn_version.h" ] && ls "$d"/lib*/libcudnn.so.* >/dev/null 2>&1; then
      printf '%s\n' "$d"
      return 0
    fi
  done
  local cache=${CDM_WHEEL_CACHE:-/var/cache/cdm-wheels}
  local whl=$cache/nvidia_cudnn_cu12-$REAL_WHEEL_VERSION-py3-none-manylinux2014_x86_64.whl
  local py
  py=$(command -v python3) || { echo "no real cuDNN here, and no python3 to fetch NVIDIA's wheel" >&2; return 77; }
  if [ ! -f "$whl" ]; then
    mkdir -p "$cache" && timeout 300 "$py" -m pip download --quiet --disable-pip-version-check \
      --no-deps --only-binary=:all: -d "$cache" "nvidia-cudnn-cu12==$REAL_WHEEL_VERSION" >&2 ||
      { echo "no real cuDNN here, and nvidia-cudnn-cu12 $REAL_WHEEL_VERSION could not be had from the package registry within 300 s" >&2; return 77; }
  fi
  local root=$SCRATCH/real-cudnn-root
  if [ ! -d "$root/lib" ]; then
    mkdir -p "$root/dist-info" "$SCRATCH/wheel" &&
      "$py" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$SCRATCH/wheel" ||
      { echo "cannot unpack '$whl'" >&2; return 77; }
    mv "$SCRATCH/wheel/nvidia/cudnn/include" "$root/include" &&
      mv "$SCRATCH/wheel/nvidia/cudnn/lib" "$root/lib" &&
      mv "$SCRATCH/wheel"/nvidia_cudnn_cu12-*.dist-info "$root/dist-info/" ||
      { echo "'$whl' does not have NVIDIA's layout (nvidia/cudnn/include, lib)" >&2; return 77; }
    rm -rf "$SCRATCH/wheel"
  fi
  printf '%s\n' "$root"
}
