# Install the machine's real cuDNN (CUDNN_FACTS.md section 7), packed at test time.
. "$TESTS_DIR/cli/lib.sh"

archive=$("$TESTS_DIR/pack_real_cudnn.sh" "$SCRATCH/real" 2>"$SCRATCH/pack.err")
status=$?
if [ $status -eq 77 ]; then
  skip "install the real cuDNN" "$(cat "$SCRATCH/pack.err")"
  done_testing
  exit
fi
check "packing the real cuDNN worked" test $status -eq 0 -a -f "$archive"
name=$(basename "$archive" .tar.xz)
id=$(printf '%s' "$name" | sed 's/^cudnn-linux-[^-]*-\([0-9.]*\)_cuda\([0-9]*\)-archive$/\1-cuda\2/')
run_cdm install "$archive" --json
expect_rc 0 "the real cuDNN installs from $(basename "$archive")"
check "as $id" test "$(json 'd["id"]')" = "$id"
check "its header is the real one" \
  cmp -s "$CDM_ROOT/$id/include/cudnn_version.h" "$(dirname "$(dirname "$(readlink -f /usr/local/cuda/include/cudnn_version.h)")")/include/cudnn_version.h"
check "libcudnn.so.9 is byte-identical to the machine's" \
  cmp -s "$CDM_ROOT/$id/lib/libcudnn.so.9" "$(readlink -f /usr/local/cuda/lib/libcudnn.so.9)"
run_cdm list --json
check "list shows it, not official (repacked here)" \
  test "$(json '[(i["id"], i["official"]) for i in d]')" = "[('$id', False)]"
done_testing
