# cdm doctor on the machine's real cuDNN (CUDNN_FACTS.md section 7), packed at test time.
. "$TESTS_DIR/cli/lib.sh"

archive=$("$TESTS_DIR/pack_real_cudnn.sh" "$SCRATCH/real" 2>"$SCRATCH/pack.err")
if [ $? -eq 77 ]; then
  skip "doctor on the real cuDNN" "$(cat "$SCRATCH/pack.err")"
  done_testing
  exit
fi
name=$(basename "$archive" .tar.xz)
id=$(printf '%s' "$name" | sed 's/^cudnn-linux-[^-]*-\([0-9.]*\)_cuda\([0-9]*\)-archive$/\1-cuda\2/')
version=${id%%-*}
short=$(printf '%s' "$version" | cut -d. -f1-3)
run_cdm install "$archive"
expect_rc 0 "the real cuDNN installs as $id"
mkdir -p "$SCRATCH/p"
ln -s "$CDM_ROOT/$id" "$SCRATCH/p/cuda_link"
echo "$id" >"$SCRATCH/p/.cudnn-version"
# No driver on these machines; an empty folder keeps a stray one out.
mkdir -p "$SCRATCH/nodriver"
export CDM_DRIVER_LIB_PATH=$SCRATCH/nodriver
export LD_LIBRARY_PATH=$SCRATCH/p/cuda_link/lib

status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }

cd "$SCRATCH/p"
run_cdm doctor --json
check "the real library loads" test "$(status library.load)" = ok
check "cudnnGetVersion reports $short from the library itself" \
  sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q "($3), as installed"' _ "$(status library.version)" "$(detail library.version)" "$short"
check "libcudnn.so.9's imports all resolve" test "$(status deps.libcudnn.so.9)" = ok
diag "deps: $(detail deps.libcudnn.so.9)"
real_status=$(detail library.handle)
diag "handle: $real_status"
check "cudnnCreate without a GPU is a warning naming the status (CUDNN_STATUS_NOT_INITIALIZED)" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "CUDNN_STATUS_NOT_INITIALIZED"' _ "$(status library.handle)" "$real_status"
check "the activated project's copy comes first (not the machine's)" test "$(status shadowing)" = ok
check "without a GPU, doctor still passes (warnings only)" test "$(json 'd["ok"]')" = True
expect_rc 0 "and exits 0"
done_testing
