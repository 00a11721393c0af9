# cdm toolkits, cdm link --toolkit and views: stand-in toolkits made here, and the machine's
# real CUDA toolkit with its cuDNN where present (the compile and nvcc checks).
. "$TESTS_DIR/cli/lib.sh" || exit 1

. "$TESTS_DIR/cli/lib_toolkit.sh" || exit 1
TK12=$SCRATCH/cuda-12.4
TK11=$SCRATCH/cuda-11.8
TK12B=$SCRATCH/other/cuda-12.4
make_toolkit "$TK12" 12.4.1 json
make_toolkit "$TK11" 11.8.89 txt
make_toolkit "$TK12B" 12.4.131 nvcc

# ---- cdm toolkits ---------------------------------------------------------------------------
CUDA_HOME=$TK12 CUDA_PATH=$TK11 run_cdm toolkits --json
expect_rc 0 "cdm toolkits --json"
check "finds CUDA_HOME's toolkit first, its version from version.json" \
  test "$(json '[(t["version"], t["found_by"], t["version_from"]) for t in d][:2]')" = "[('12.4.1', 'CUDA_HOME', 'version.json'), ('11.8.89', 'CUDA_PATH', 'version.txt')]"
CUDA_HOME=$TK12B CUDA_PATH=$TK12B run_cdm toolkits --json
check "the same folder is listed once; a version from nvcc --version" \
  test "$(json '[(t["version"], t["found_by"], t["version_from"]) for t in d if t["path"] == "'"$TK12B"'"]')" = "[('12.4', 'CUDA_HOME', 'nvcc')]"
CUDA_HOME=$TK12 run_cdm toolkits
check "the text lists version, how it was found and the folder" \
  sh -c 'printf "%s" "$1" | grep -Eq "^12\.4\.1 +CUDA_HOME +$2$"' _ "$OUT" "$TK12"

CUDA_HOME=$TK12 CUDA_PATH=$TK11 run_cdm complete --current= -- link "$SCRATCH" 9.1 --toolkit
check "link --toolkit completes to the toolkits found, as X.Y, each once, and none" \
  sh -c 'printf "%s\n" "$1" | grep -qx 12.4 && printf "%s\n" "$1" | grep -qx 11.8 &&
    printf "%s\n" "$1" | grep -qx none && [ -z "$(printf "%s\n" "$1" | sort | uniq -d)" ]' _ "$OUT"
CUDA_HOME=$TK12 CUDA_PATH=$TK11 run_cdm complete --current=11 -- link "$SCRATCH" 9.1 --toolkit
check "and narrows them to what is typed (11 -> 11.8)" test "$OUT" = 11.8

# ---- link --toolkit ---------------------------------------------------------------------------
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
run_cdm install "$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)"
A=9.1.0.70-cuda12 B=9.3.0.75-cuda12
P=$SCRATCH/p
Q=$SCRATCH/q
mkdir -p "$P" "$Q"
export CUDA_HOME=$TK12
run_cdm link "$P" 9.1 --toolkit 12.4 --json
expect_rc 0 "link --toolkit 12.4 (a version cdm toolkits lists)"
check "which: the toolkit recorded" test "$(json '(d["id"], d["toolkit"], d["toolkit_path"])')" = "('$A', '12.4.1', '$TK12')"
view=$(readlink "$P/cuda_link")
check "the link leads to a view in the store" \
  sh -c 'case "$1" in "$2"/views/9.1.0.70-cuda12+cuda12.4.1-*) exit 0 ;; esac; exit 1' _ "$view" "$CDM_ROOT"
check "the view holds the toolkit's nvcc" test "$(readlink -f "$view/bin/nvcc")" = "$TK12/bin/nvcc"
check "and its runtime header and library" \
  test "$(readlink -f "$view/include/cuda_runtime.h")" = "$TK12/include/cuda_runtime.h" -a \
  "$(readlink -f "$view/lib64/libcudart.so")" = "$TK12/targets/x86_64-linux/lib/libcudart.so.12"
check "cuDNN's header comes from the install, not the toolkit's stale one" \
  test "$(readlink -f "$view/include/cudnn.h")" = "$CDM_ROOT/$A/include/cudnn.h"
check "cuDNN's library is the install's, in the toolkit's lib64" \
  test "$(readlink -f "$view/lib64/libcudnn.so.9")" = "$(readlink -f "$CDM_ROOT/$A/lib/libcudnn.so.9")"
check "a cuDNN file only the toolkit has is left out of the view" test ! -e "$view/lib64/libcudnn_ops_infer.so.8"
check "folders without cuDNN stay one link into the toolkit" test "$(readlink "$view/nvvm")" = "$TK12/nvvm"
check "the toolkit was not touched" test "$(cat "$TK12/include/cudnn.h")" = "stale cudnn.h left by an earlier merge"
run_cdm link "$Q" 9.1 --toolkit "$TK12"
expect_rc 0 "link --toolkit DIR"
check "projects with the same pair share the view" test "$(readlink "$Q/cuda_link")" = "$view"
run_cdm link "$Q" 9.1 --toolkit "$TK12"
check "linking again changes nothing" sh -c 'printf "%s" "$1" | grep -q "nothing to do"' _ "$ERR"

# A link without --toolkit in a project that has one builds a view, so it needs the store's
# lock, which it learns by looking at the project first: the look's index is kept under the
# locks, so the link opens the store's index (and the user's state) once.
if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
  skip_tool "cdm link opens the store once" "no strace, or ptrace is not allowed here"
else
  # LeakSanitizer cannot run under ptrace: a sanitized cdm goes without its leak check here
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -o "$SCRATCH/link.trace" -e trace=open,openat "$CDM" link "$Q" 9.3 >/dev/null 2>&1
  check "cdm link with the project's toolkit switches it" \
    test "$(basename "$(readlink "$Q/cuda_link")")" != "$(basename "$view")"
  opens=$(grep -c "\"$CDM_ROOT/cdm.db\"" "$SCRATCH/link.trace")
  check "and opens the store's index once (opened $opens times)" test "$opens" -eq 1
  opens=$(grep -c "\"$STATE_DB\"" "$SCRATCH/link.trace")
  check "and the user's state once (opened $opens times)" test "$opens" -eq 1
  locks=$(grep -oE "\"($CDM_ROOT/\.lock|$STATE_DB\.lock)\"" "$SCRATCH/link.trace" | tr -d '"' | tr '\n' ' ')
  check "taking the store's lock before the state's" test "$locks" = "$CDM_ROOT/.lock $STATE_DB.lock "
  run_cdm link "$Q" 9.1
  expect_rc 0 "and back"
fi

# ---- the compatibility tables -----------------------------------------------------------------
before=$(tree_digest "$P")
run_cdm link "$P" 9.1 --toolkit "$TK11"
expect_rc 1 "a cuda12 build with a CUDA 11.8 toolkit is refused"
expect_err "does not work with a CUDA 11.8 toolkit.*--force" "the error says why and names --force"
check "the project is as it was" test "$(tree_digest "$P")" = "$before" -a "$(readlink "$P/cuda_link")" = "$view"
run_cdm link "$P" 9.1 --toolkit "$TK11" --force
expect_rc 0 "--force links the pair all the same"
expect_err "warning.*--force" "with a warning"
run_cdm link "$P" 9.1 --toolkit 13.7
expect_rc 1 "a toolkit version not found"
expect_err "no CUDA toolkit 13.7 found" "says none was found"
run_cdm link "$P" 9.1 --toolkit "$SCRATCH/nowhere"
expect_rc 1 "a folder that is no toolkit"
run_cdm link "$P" 9.3
expect_rc 1 "a later link without --toolkit keeps the project's toolkit: the pair is checked again"
run_cdm link "$P" 9.3 --force
expect_rc 0 "and --force links it"
run_cdm which "$P" --json
check "keeping the project's toolkit" test "$(json '(d["id"], d["toolkit"])')" = "('$B', '11.8.89')"
run_cdm link "$P" 9.3 --toolkit none --json
check "--toolkit none: the link leads to the install again" \
  test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$B" -a "$(json 'd["toolkit"]')" = None
run_cdm history "$P" --json
check "history records each generation's toolkit" \
  test "$(json '[g["toolkit"] for g in d]')" = "['12.4.1', '11.8.89', '11.8.89', None]"

# ---- activation ---------------------------------------------------------------------------------
run_cdm link "$P" 9.1 --toolkit 12.4
act=$(cd "$P" && CUDA_HOME=/opt/mine PATH="/usr/bin:/bin" bash -c '
  eval "$("$CDM" activate --shell bash)" || exit 1
  printf "%s\n" "$CUDA_PATH" "$CUDA_HOME" "$CUDNN_PATH" "$(command -v nvcc)" "${LD_LIBRARY_PATH%%:*}" "$(nvcc --version | tail -n1)"
  eval "$("$CDM" activate --shell bash)"
  printf "%s\n" "$PATH"
  eval "$("$CDM" deactivate --shell bash)"
  printf "%s\n" "$CUDA_HOME" "$PATH" "${CUDA_PATH-unset}" "$(env | grep -cE "^CDM_(ACTIVE|PROJECT|PATH_ENTRY|BIN_ENTRY|SAVED_)")"')
L=$P/cuda_link
check "activation sets CUDA_PATH, CUDA_HOME and CUDNN_PATH to the link" \
  test "$(printf '%s\n' "$act" | sed -n 1,3p | sort -u)" = "$L"
check "nvcc is \$CUDA_PATH/bin/nvcc" test "$(printf '%s\n' "$act" | sed -n 4p)" = "$L/bin/nvcc"
check "the loader's path starts with the view's lib64" test "$(printf '%s\n' "$act" | sed -n 5p)" = "$L/lib64"
check "nvcc runs through the link" test "$(printf '%s\n' "$act" | sed -n 6p)" = "Cuda compilation tools, release 12.4, V12.4.1"
check "activating twice puts bin on PATH once" test "$(printf '%s\n' "$act" | sed -n 7p)" = "$L/bin:/usr/bin:/bin"
check "deactivate restores CUDA_HOME and PATH exactly" \
  test "$(printf '%s\n' "$act" | sed -n 8,10p | tr '\n' ' ')" = "/opt/mine /usr/bin:/bin unset "
check "and leaves no CDM_ variable" test "$(printf '%s\n' "$act" | sed -n 11p)" = 0
hook=$(cd "$P" && CUDA_HOME=/opt/mine bash -c '
  eval "$("$CDM" activate --shell bash)" || exit 1
  echo "unchanged:[$("$CDM" activate --auto --shell bash)]"
  "$CDM" link . --toolkit none >/dev/null 2>&1
  eval "$("$CDM" activate --auto --shell bash)"
  echo "after --toolkit none: $CUDA_HOME ${CDM_SAVED_CUDA_HOME-none}"
  "$CDM" link . --toolkit "$1" >/dev/null 2>&1
  eval "$("$CDM" activate --auto --shell bash)"
  echo "after --toolkit again: $CUDA_HOME"' _ "$TK12")
check "the prompt hook has nothing to do while the view is active" \
  sh -c 'printf "%s" "$1" | grep -q "^unchanged:\[\]$"' _ "$hook"
check "it follows a link to the install alone (CUDA_HOME back)" \
  sh -c 'printf "%s" "$1" | grep -q "^after --toolkit none: /opt/mine none$"' _ "$hook"
check "and back to the view" sh -c 'printf "%s" "$1" | grep -q "^after --toolkit again: $2/cuda_link$"' _ "$hook" "$P"
plain=$(cd "$Q" && run_cdm link "$Q" 9.1 --toolkit none && CUDA_HOME=/opt/mine bash -c '
  eval "$("$CDM" activate --shell bash)"; printf "%s\n" "$CUDA_HOME" "$CUDA_PATH"')
check "without a toolkit activation leaves CUDA_HOME alone, as before" \
  test "$plain" = "/opt/mine
$Q/cuda_link"

# ---- verify and doctor ---------------------------------------------------------------------------
status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
run_cdm gc
run_cdm verify --json
expect_rc 0 "verify with a view in use"
check "checks the view too" test "$(json 'd["views"]')" = 1
run_cdm doctor "$P" --json
check "doctor: the view is whole" test "$(status toolkit.view)" = ok
check "doctor: the toolkit is the project's" sh -c 'printf "%s" "$1" | grep -q "12.4.1"' _ "$(detail toolkit)"
mv "$TK12/include/cuda_runtime.h" "$SCRATCH/kept.h"
run_cdm verify
expect_rc 1 "verify fails when a toolkit file the view links to is gone"
check "and names it" sh -c 'printf "%s" "$1" | grep -q "include/cuda_runtime.h.*leads nowhere"' _ "$OUT$ERR"
run_cdm doctor "$P" --json
check "doctor fails the view, naming it" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "cuda_runtime.h"' _ "$(status toolkit.view)" "$(detail toolkit.view)"
run_cdm link "$P" --toolkit "$TK12"
expect_rc 0 "cdm link --toolkit again"
run_cdm verify
expect_rc 0 "rebuilds the broken view: verify passes"
mv "$SCRATCH/kept.h" "$TK12/include/cuda_runtime.h"
run_cdm link "$P" --toolkit "$TK12"
check "and a link after the file is back puts it in the view again" test -L "$view/include/cuda_runtime.h"

# ---- gc, rollback, a crash while building ---------------------------------------------------------
run_cdm link "$P" --toolkit none
run_cdm gc --verbose
expect_err "removed the view" "gc removes the view no project uses"
check "it is gone" empty_dir "$CDM_ROOT/views"
check "and the toolkit's files are still there" test -f "$TK12/bin/nvcc" -a -f "$TK12/targets/x86_64-linux/lib/libcudart.so.12"
run_cdm rollback "$P"
expect_rc 0 "rolling back to the generation with a toolkit"
check "builds its view again" test "$(readlink -f "$P/cuda_link/bin/nvcc")" = "$TK12/bin/nvcc"
run_cdm link "$P" --toolkit none
run_cdm gc
before=$(tree_digest "$P")
CDM_CRASH_AT=view-built "$CDM" link "$P" 9.1 --toolkit "$TK12" >/dev/null 2>&1
check "a link killed once its view is built leaves the project as it was" test "$(tree_digest "$P")" = "$before"
check "and no view in place" empty_dir "$CDM_ROOT/views"
run_cdm gc
check "the next command removes the half-made view from .staging" empty_dir "$CDM_ROOT/.staging"

# ---- the machine's real toolkit and cuDNN -----------------------------------------------------------
unset CUDA_HOME CUDA_PATH
real=""
for d in /usr/local/cuda /usr/local/cuda-*; do
  if [ -x "$d/bin/nvcc" ] && [ -f "$d/include/cuda_runtime.h" ]; then real=$d; break; fi
done
archive=""
[ -n "$real" ] && archive=$("$TESTS_DIR/pack_real_cudnn.sh" "$SCRATCH/real" 2>"$SCRATCH/pack.err")
if [ -z "$real" ] || [ -z "$archive" ] || ! command -v cc >/dev/null; then
  skip "a C file with cudnn.h and cuda_runtime.h builds with only \$CUDA_PATH" \
    "no CUDA toolkit with nvcc and a real cuDNN here ($(cat "$SCRATCH/pack.err" 2>/dev/null))"
else
  id=$(basename "$archive" .tar.xz | sed 's/^cudnn-linux-[^-]*-\([0-9.]*\)_cuda\([0-9]*\)-archive$/\1-cuda\2/')
  tkv=$("$real/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
  R=$SCRATCH/real-project
  mkdir -p "$R"
  run_cdm install "$archive"
  run_cdm link "$R" "$id" --toolkit "$tkv"
  expect_rc 0 "cdm link P $id --toolkit $tkv (the machine's toolkit in $real)"
  out=$(cd "$R" && env -u CUDA_HOME -u CUDA_PATH PATH=/usr/bin:/bin bash -c '
    eval "$("$CDM" activate --shell bash)" || exit 1
    echo "nvcc=$(command -v nvcc) CUDA_PATH=$CUDA_PATH"
    cc -o "$1/conv" "$2/gpu/conv.c" -I"$CUDA_PATH/include" -L"$CUDA_PATH/lib64" -lcudnn -lcudart -ldl 2>&1 &&
      echo BUILT && ldd "$1/conv" | grep -E "libcudnn|libcudart"' _ "$SCRATCH" "$TESTS_DIR")
  diag "$out"
  check "after activation nvcc is \$CUDA_PATH/bin/nvcc" \
    sh -c 'printf "%s" "$1" | grep -q "^nvcc=$2/cuda_link/bin/nvcc CUDA_PATH=$2/cuda_link$"' _ "$out" "$R"
  check "conv.c (cudnn.h, cuda_runtime.h) compiles and links with only -I\$CUDA_PATH/include -L\$CUDA_PATH/lib64" \
    sh -c 'printf "%s" "$1" | grep -q "^BUILT$"' _ "$out"
  check "and its cuDNN and cudart resolve through the link" \
    sh -c 'printf "%s" "$1" | grep -q "libcudnn.so.9 => $2/cuda_link/lib64/libcudnn.so.9" && printf "%s" "$1" | grep -q "libcudart.so.[0-9]* => $2/cuda_link/lib64/"' _ "$out" "$R"
fi
done_testing
