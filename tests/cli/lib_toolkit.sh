# Stand-in CUDA toolkits for the scenarios about toolkits: sourced after lib.sh.

# A stand-in toolkit: DIR VERSION HOW (json, txt or nvcc: what tells its version).
make_toolkit() {
  local dir=$1 version=$2 how=$3
  mkdir -p "$dir/bin" "$dir/include" "$dir/targets/x86_64-linux/lib" "$dir/nvvm/bin"
  ln -s targets/x86_64-linux/lib "$dir/lib64"
  printf '#!/bin/sh\necho "Cuda compilation tools, release %s, V%s"\n' "${version%.*}" "$version" >"$dir/bin/nvcc"
  chmod +x "$dir/bin/nvcc"
  echo '/* the toolkit runtime */' >"$dir/include/cuda_runtime.h"
  echo 'stale cudnn.h left by an earlier merge' >"$dir/include/cudnn.h"
  echo cudart >"$dir/targets/x86_64-linux/lib/libcudart.so.12"
  ln -s libcudart.so.12 "$dir/targets/x86_64-linux/lib/libcudart.so"
  echo 'stale libcudnn' >"$dir/targets/x86_64-linux/lib/libcudnn_ops_infer.so.8"
  case $how in
    json) printf '{\n  "cuda" : {\n    "name" : "CUDA SDK",\n    "version" : "%s"\n  }\n}\n' "$version" >"$dir/version.json" ;;
    txt) printf 'CUDA Version %s\n' "$version" >"$dir/version.txt" ;;
  esac
}
