# Install a real NVIDIA cuDNN (the machine's, else NVIDIA's wheel),
# packed at test time.
. "$TESTS_DIR/cli/lib.sh"

. "$TESTS_DIR/cli/lib_real_cudnn.sh"

if ! root=$(real_cudnn_root 2>"$SCRATCH/pack.err"); then
  skip_tool "install the real cuDNN" "$(tail -1 "$SCRATCH/pack.err")"
  done_testing
  exit
fi
archive=$("$TESTS_DIR/pack_real_cudnn.sh" "$SCRATCH/real" --cuda-root "$root" 2>"$SCRATCH/pack.err")
status=$?
check "packing the real cuDNN worked" test $status -eq 0 -a -f "$archive"
name=$(basename "$archive" .tar.xz)
id=$(printf '%s' "$name" | sed 's/^cudnn-linux-[^-]*-\([0-9.]*\)_cuda\([0-9]*\)-archive$/\1-cuda\2/')
run_cdm install "$archive" --json
expect_rc 0 "the real cuDNN installs from $(basename "$archive")"
check "as $id" test "$(json 'd["id"]')" = "$id"
check "its header is the real one" \
  cmp -s "$CDM_ROOT/$id/include/cudnn_version.h" "$(readlink -f "$root/include/cudnn_version.h")"
check "libcudnn.so.9 is byte-identical to the machine's" \
  cmp -s "$CDM_ROOT/$id/lib/libcudnn.so.9" "$(readlink -f "$(ls "$root"/lib*/libcudnn.so.9 | head -1)")"
run_cdm list --json
check "list shows it, not official (repacked here)" \
  test "$(json '[(i["id"], i["official"]) for i in d]')" = "[('$id', False)]"
done_testing
