# cdm doctor on a real NVIDIA cuDNN (the machine's, else NVIDIA's wheel: lib_real_cudnn.sh),
# packed at test time.
. "$TESTS_DIR/cli/lib.sh"

. "$TESTS_DIR/cli/lib_real_cudnn.sh"

if ! root=$(real_cudnn_root 2>"$SCRATCH/pack.err") ||
  ! archive=$("$TESTS_DIR/pack_real_cudnn.sh" "$SCRATCH/real" --cuda-root "$root" 2>"$SCRATCH/pack.err"); then
  skip_tool "doctor on the real cuDNN" "$(tail -1 "$SCRATCH/pack.err")"
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

cd "$SCRATCH/p" || exit 1
run_cdm doctor --json
check "the real library loads" test "$(status library.load)" = ok
if ! ldconfig -p 2>/dev/null | grep -q 'libcudnn_graph.so.9 '; then
  # The archive packed here holds only libcudnn.so.9, and no other cuDNN is in the loader
  # cache: the real cudnnGetVersion cannot open its graph library and aborts its process.
  # The doctor asked in a child, so it says so and its report is complete.
  check "the real library aborting in cudnnGetVersion is a failed check, naming the signal" \
    sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "killed the process by signal 6 .* in cudnnGetVersion, asked in a child process"' _ "$(status library.version)" "$(detail library.version)"
  check "the steps after it say they were not asked" test "$(status library.handle)" = skip
  check "and the report goes on to the same-install rule, which names the missing library" \
    sh -c 'printf "%s" "$1" | grep -q "finds it nowhere"' _ "$(detail same.libcudnn_graph.so.9)"
  expect_rc 1 "the doctor exits 1"
  done_testing
  exit
fi
check "cudnnGetVersion reports $short from the library itself" \
  sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q "($3), as installed"' _ "$(status library.version)" "$(detail library.version)" "$short"
check "libcudnn.so.9's imports all resolve" test "$(status deps.libcudnn.so.9)" = ok
diag "deps: $(detail deps.libcudnn.so.9)"
real_status=$(detail library.handle)
diag "handle: $real_status"
check "cudnnCreate without a GPU is a warning naming the status (CUDNN_STATUS_NOT_INITIALIZED)" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "CUDNN_STATUS_NOT_INITIALIZED"' _ "$(status library.handle)" "$real_status"
check "the activated project's copy comes first (not the machine's)" test "$(status shadowing)" = ok

# The archive packed here holds only libcudnn.so.9 (tests stay fast), so the sub-libraries
# it opens by name would come from the machine's own cuDNN through the loader cache: a
# mixed cuDNN, which the same-install rule names (and nothing else fails).
check "without a GPU, only the same-install rule fails" \
  test "$(json 'sorted(set(c["name"].split(".")[0] for c in d["checks"] if c["status"] == "fail"))')" = "['same']"
expect_rc 1 "so the doctor exits 1"
graph=$(json '[c["detail"] for c in d["checks"] if c["name"] == "same.libcudnn_graph.so.9"][0]')
diag "same.libcudnn_graph.so.9: $graph"
cached=""
if ldconfig -p 2>/dev/null | grep -q 'libcudnn_graph.so.9 '; then
  cached=$(ldconfig -p | sed -n 's/^[[:space:]]*libcudnn_graph.so.9 (.*) => //p' | head -1)
  check "it names the outside copy the loader cache gives, with its version" \
    sh -c 'printf "%s" "$1" | grep -q "takes .$2. (cuDNN $3[.0-9]*) via the loader cache: outside the install"' _ "$graph" "$cached" "$short"
else
  check "it names the sub-library as missing" sh -c 'printf "%s" "$1" | grep -q "finds it nowhere"' _ "$graph"
fi

# cdm doctor -- CMD on the real library: the project's libcudnn.so.9 is found through the
# activated LD_LIBRARY_PATH, and cudnnGetVersion makes it open libcudnn_graph.so.9 by name,
# which this install lacks: the process holds cuDNN from two folders.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
if [ -z "$cached" ] || ! "$PY" -c 'import ctypes' 2>/dev/null; then
  skip "doctor -- python3 on the real cuDNN" "no libcudnn_graph.so.9 in the loader cache, or no python3 with ctypes"
else
  printf '%s\n' 'import ctypes' 'lib = ctypes.CDLL("libcudnn.so.9")' \
    'print("cudnnGetVersion", lib.cudnnGetVersion())' >"$SCRATCH/version.py"
  unset LD_LIBRARY_PATH
  run_cdm doctor --json -- "$PY" "$SCRATCH/version.py"
  expect_rc 1 "doctor -- python3 fails: cuDNN from two folders"
  check "the command's output went to stderr, leaving stdout to the JSON" \
    sh -c 'printf "%s" "$1" | grep -q "cudnnGetVersion 9"' _ "$ERR"
  check "libcudnn.so.9 from the store, through the activated link" \
    test "$(json '[(l["install"], l["path"]) for l in d["loaded"] if l["path"].endswith("/libcudnn.so.9")][0]')" = "('$id', '$SCRATCH/p/cuda_link/lib/libcudnn.so.9')"
  check "libcudnn_graph.so.9 from the machine's folder, by the loader cache" \
    test "$(json '[(l["install"], l["real_path"], "loader cache" in l["why"]) for l in d["loaded"] if l["path"].endswith("libcudnn_graph.so.9")][0]')" = "(None, '$(realpath "$cached")', True)"
  check "run.cudnn names both folders" \
    sh -c 'printf "%s" "$1" | grep -q "from 2 folders: .$2. .*and .$3."' _ "$(detail run.cudnn)" "$CDM_ROOT/$id/lib" "$(dirname "$(realpath "$cached")")"
fi
done_testing
