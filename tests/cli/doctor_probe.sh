# The doctor asks the library under test in a child process: stand-ins whose
# cudnnGetVersion aborts (as cuDNN does when a sub-library it needs is missing) and whose
# cudnnCreate hangs give a failed check naming the step and how it ended, and the report
# is complete, as text and as JSON.
. "$TESTS_DIR/cli/lib.sh" || exit 1

CC=${CC:-cc}
if ! command -v "$CC" >/dev/null 2>&1; then
  skip_tool "the doctor's child process" "no C compiler ($CC) to build stand-ins"
  done_testing
  exit
fi
export CDM_DRIVER_LIB_PATH=$SCRATCH/nodriver LD_LIBRARY_PATH=""
mkdir -p "$CDM_DRIVER_LIB_PATH"
# stand VERSION FLAG: an archive whose main library is built with -DFLAG, installed
stand() {
  local ver=$1 flag=$2 name="cudnn-linux-x86_64-$1_cuda12-archive"
  local d=$SCRATCH/$name
  mkdir -p "$d/lib" "$d/include"
  IFS=. read -r ma mi pa _ <<<"$ver"
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$ma" "$mi" "$pa" \
    >"$d/include/cudnn_version.h"
  "$CC" -shared -fPIC -o "$d/lib/libcudnn.so.9" "$TESTS_DIR/stub_cudnn.c" \
    -DSTUB_VERSION="$ma$(printf %02d%02d "$mi" "$pa")" -D"$flag" -Wl,-soname,libcudnn.so.9 || return 1
  echo stand-in >"$d/LICENSE"
  tar -C "$SCRATCH" -cJf "$SCRATCH/$name.tar.xz" "$name" && "$CDM" install "$SCRATCH/$name.tar.xz" >/dev/null
}
stand 9.1.0.70 STUB_ABORT_VERSION || not_ok "the aborting stand-in installs"
stand 9.2.0.82 STUB_HANG_CREATE || not_ok "the hanging stand-in installs"
mkdir -p "$SCRATCH/pa" "$SCRATCH/ph"
"$CDM" link "$SCRATCH/pa" 9.1 >/dev/null
"$CDM" link "$SCRATCH/ph" 9.2 >/dev/null

status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }

run_cdm doctor "$SCRATCH/pa" --json
expect_rc 1 "a library that aborts: the doctor itself finishes, exit 1"
check "its report is one whole JSON document" test "$(json 'd["install"]')" = 9.1.0.70-cuda12
check "library.load is ok (it loaded)" test "$(status library.load)" = ok
check "library.version fails, naming the signal and the step" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "killed the process by signal 6 (Aborted) in cudnnGetVersion, asked in a child process"' _ "$(status library.version)" "$(detail library.version)"
check "and the checks after it are still there" test "$(json 'len([c for c in d["checks"] if c["name"].startswith(("driver", "same", "python"))]) > 0')" = True

CDM_PROBE_TIMEOUT_MS=1500 run_cdm doctor "$SCRATCH/ph" --json
expect_rc 1 "a library that hangs in cudnnCreate: the doctor stops waiting"
check "library.version is ok (it answered)" test "$(status library.version)" = ok
check "library.handle fails, saying it gave no answer" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "gave no answer within 2 s (stopped) in cudnnCreate or cudnnDestroy"' _ "$(status library.handle)" "$(detail library.handle)"
check "no child is left running" sh -c '! pgrep -f "$1" >/dev/null' _ "[c]dm doctor $SCRATCH/ph"
run_cdm doctor "$SCRATCH/pa"
check "as text too, the step and the signal" sh -c 'printf "%s" "$1" | grep -q "library.version .*in cudnnGetVersion"' _ "$OUT"

done_testing
