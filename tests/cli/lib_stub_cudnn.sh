# Stand-in cuDNN libraries built here with the real sonames (tests/stub_cudnn.c), for the
# scenarios that load them: sourced after lib.sh, with CC set and $W a work folder.

# tree DIR A.B.C VERSIONCODE [SUB...]: stand-in libraries of a cuDNN release in DIR/lib
# (RUNPATH $ORIGIN, as NVIDIA builds them) with DIR/include/cudnn_version.h. The SUBs given
# are left out; libcudnn_cnn links libcudnn_ops as in cuDNN 9 (8: cnn_infer ops_infer).
tree() {
  local dir=$1 ver=$2 code=$3
  shift 3
  local major minor patch
  IFS=. read -r major minor patch <<<"$ver"
  mkdir -p "$dir/lib" "$dir/include"
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' \
    "$major" "$minor" "$patch" >"$dir/include/cudnn_version.h"
  local rp=('-Wl,--enable-new-dtags,-rpath,$ORIGIN')
  "$CC" -shared -fPIC -o "$dir/lib/libcudnn.so.$major" "$TESTS_DIR/stub_cudnn.c" \
    -DSTUB_VERSION="$code" "-Wl,-soname,libcudnn.so.$major" "${rp[@]}" || return 1
  local subs="graph ops cnn adv heuristic engines_precompiled engines_runtime_compiled"
  local ops=ops cnn=cnn
  if [ "$major" = 8 ]; then
    subs="ops_infer ops_train cnn_infer cnn_train adv_infer adv_train" ops=ops_infer cnn=cnn_infer
  fi
  local sub skip extra
  for sub in $subs; do
    extra=()
    [ "$sub" = "$cnn" ] && extra=('-Wl,--no-as-needed' "$W/deps$major/libcudnn_$ops.so.$major")
    if [ "$sub" = "$ops" ]; then # what cnn links against, wherever the tree lacks it
      mkdir -p "$W/deps$major"
      "$CC" -shared -fPIC -o "$W/deps$major/libcudnn_$ops.so.$major" "$TESTS_DIR/stub_cudnn.c" \
        -DSTUB_SUB "-Wl,-soname,libcudnn_$ops.so.$major" || return 1
    fi
    for skip in "$@"; do [ "$skip" = "$sub" ] && continue 2; done
    "$CC" -shared -fPIC -o "$dir/lib/libcudnn_$sub.so.$major" "$TESTS_DIR/stub_cudnn.c" \
      -DSTUB_SUB "-Wl,-soname,libcudnn_$sub.so.$major" "${rp[@]}" "${extra[@]}" || return 1
  done
}
# install A.B.C.D CUDA CODE [SUB...]: a layout-C archive of such a tree, installed
install() {
  local ver=$1 cuda=$2 code=$3
  shift 3
  local name="cudnn-linux-x86_64-${ver}_cuda${cuda}-archive"
  tree "$W/$name" "${ver%.*}" "$code" "$@" || return 1
  echo "stand-in" >"$W/$name/LICENSE"
  tar -C "$W" -cJf "$W/$name.tar.xz" "$name" && "$CDM" install "$W/$name.tar.xz" >/dev/null
}
