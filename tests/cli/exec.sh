# cdm exec on stand-in cuDNN libraries built here with the real sonames: the command runs
# with exactly the activation's environment, its status is cdm's, and every libcudnn* its
# processes load (by name, by path, in a child) comes from the project's install, read from
# /proc/self/maps; a name the install lacks loads as it would; --no-redirect leaves loads
# alone; an LD_AUDIT already set is kept.
. "$TESTS_DIR/cli/lib.sh" || exit 1

CC=${CC:-cc}
PY=$(python3 -c 'import sys, ctypes; print(sys.executable)' 2>/dev/null)
if ! command -v "$CC" >/dev/null 2>&1 || [ -z "$PY" ]; then
  skip_tool "cdm exec" "no C compiler ($CC) to build stand-ins, or no python3 with ctypes"
  done_testing
  exit
fi
unset CUDA_HOME CONDA_PREFIX VIRTUAL_ENV LD_AUDIT
export LD_LIBRARY_PATH=""
W=$SCRATCH/work
mkdir -p "$W"
. "$TESTS_DIR/cli/lib_stub_cudnn.sh" || exit 1

install 9.1.0.70 12 90100 || not_ok "stand-in 9.1.0.70 installs"
install 9.2.0.82 12 90200 ops || not_ok "stand-in 9.2.0.82 without libcudnn_ops installs"
O=$SCRATCH/other # another cuDNN outside the store, 9.0.0, as a wheel would carry it
tree "$O" 9.0.0 90000
mkdir -p "$SCRATCH/pa" "$SCRATCH/pm"
"$CDM" link "$SCRATCH/pa" 9.1 >/dev/null
"$CDM" link "$SCRATCH/pm" 9.2 >/dev/null
A=$(cd "$CDM_ROOT/9.1.0.70-cuda12/lib" && pwd -P)

# what a process maps of cuDNN, and the version the library it opened by path answers
cat >"$W/loads.py" <<'PY'
import ctypes, os, subprocess, sys
other = sys.argv[1]
main = ctypes.CDLL(os.path.join(other, "libcudnn.so.9"))  # by path, as a preload does
ctypes.CDLL("libcudnn_graph.so.9")                          # by name
print("version", main.cudnnGetVersion())
for line in open("/proc/self/maps"):
    if "libcudnn" in line:
        print("map", os.path.realpath(line.split()[-1]))
if len(sys.argv) > 2:  # and a child process doing the same
    sys.stdout.flush()
    subprocess.run([sys.executable, __file__, other])
PY
maps() { printf '%s\n' "$OUT" | sed -n 's/^map //p' | sort -u; }

cd "$SCRATCH/pa" || exit 1
run_cdm exec -- "$PY" "$W/loads.py" "$O/lib" child
expect_rc 0 "cdm exec runs the command"
check "cdm prints nothing of its own" test -z "$ERR"
check "the library opened by the path of another copy is the install's (cudnnGetVersion 90100)" \
  test "$(printf '%s\n' "$OUT" | sed -n 's/^version //p' | sort -u)" = 90100
check "every cuDNN library mapped, in the command and its child, is the install's" \
  sh -c 'test -n "$1" && ! printf "%s\n" "$1" | grep -v "^$2/"' _ "$(maps)" "$A"
check "the main library and the graph library both" \
  test "$(maps | xargs -n1 basename | grep -c '^libcudnn\(_graph\)\?\.so\.9$')" = 2
check "in both processes" test "$(printf '%s\n' "$OUT" | grep -c '^version 90100$')" = 2

# The redirect hands over a regular file only: a folder of a library's name where the
# redirect looks is passed over, and the load goes on as it would without cdm.
mkdir -p "$SCRATCH/rd/libcudnn_graph.so.9"
OUT=$(LD_AUDIT="$(dirname "$CDM")/cdm-audit.so" CDM_REDIRECT_DIR="$SCRATCH/rd" LD_LIBRARY_PATH="$O/lib" \
  "$PY" -c 'import ctypes; ctypes.CDLL("libcudnn_graph.so.9"); print("loaded")' 2>&1)
check "a folder of the library's name in the redirect folder does not fail the load" test "$OUT" = loaded || diag "$OUT"

run_cdm exec --no-redirect -- "$PY" "$W/loads.py" "$O/lib"
check "--no-redirect: the copy opened by its path is that copy (90000)" \
  test "$(printf '%s\n' "$OUT" | sed -n 's/^version //p')" = 90000

# a name the install has no file for loads from where it would have
cat >"$W/ops.py" <<'PY'
import ctypes, os, sys
ctypes.CDLL(os.path.join(sys.argv[1], "libcudnn_ops.so.9"))
print("\n".join(sorted({os.path.realpath(l.split()[-1]) for l in open("/proc/self/maps") if "libcudnn_ops" in l})))
PY
run_cdm exec "$SCRATCH/pm" -- "$PY" "$W/ops.py" "$O/lib"
expect_rc 0 "a library the install lacks (9.2 without libcudnn_ops) does not fail"
check "it loads from the path given" test "$OUT" = "$(realpath "$O/lib/libcudnn_ops.so.9")"

# the environment: what cdm activate --redirect sets, no more
envs() { env | grep -v '^\(_\|SHLVL\|PWD\|OLDPWD\)=' | sort; }
activated=$(eval "$("$CDM" activate --redirect --shell bash)" && envs)
run_cdm exec -- bash -c "$(declare -f envs); envs"
check "the command's environment is the shell's activated with --redirect" test "$OUT" = "$activated"
[ "$OUT" = "$activated" ] || diag "$(diff <(printf '%s\n' "$activated") <(printf '%s\n' "$OUT"))"
check "LD_LIBRARY_PATH starts with the project's link" \
  sh -c 'printf "%s\n" "$1" | grep -q "^LD_LIBRARY_PATH=$2/cuda_link/lib"' _ "$OUT" "$SCRATCH/pa"
run_cdm exec -- sh -c 'printf "%s" "$LD_AUDIT"'
audit=$OUT
check "LD_AUDIT names cdm-audit.so" sh -c 'case "$1" in */cdm-audit.so) true ;; *) false ;; esac' _ "$audit"
LD_AUDIT=/nonexistent/other-audit.so run_cdm exec -- sh -c 'printf "%s" "$LD_AUDIT"'
check "an LD_AUDIT already set is kept, cdm's after it" test "$OUT" = "/nonexistent/other-audit.so:$audit"

# cdm activate --redirect: the same redirect for every program the shell starts
OUT=$(bash -c 'eval "$("$1" activate --redirect --shell bash)" && "$2" "$3/loads.py" "$4/lib" child' _ \
  "$CDM" "$PY" "$W" "$O")
check "activated with --redirect: the copy opened by path is the install's, in a child too" \
  test "$(printf '%s\n' "$OUT" | grep -c '^version 90100$')" = 2
check "every cuDNN library mapped from an activated shell is the install's" \
  sh -c 'test -n "$1" && ! printf "%s\n" "$1" | grep -v "^$2/"' _ "$(maps)" "$A"
OUT=$(bash -c 'eval "$("$1" activate --shell bash)" && "$2" "$3/loads.py" "$4/lib"' _ \
  "$CDM" "$PY" "$W" "$O")
check "activated without it: the copy opened by path is that copy (90000)" \
  test "$(printf '%s\n' "$OUT" | sed -n 's/^version //p')" = 90000
OUT=$(cd "$SCRATCH/pm" && bash -c 'eval "$("$1" activate --redirect --shell bash)" && "$2" "$3/ops.py" "$4/lib"' _ \
  "$CDM" "$PY" "$W" "$O")
check "activated with --redirect: a name the install lacks loads from the path given" \
  test "$OUT" = "$(realpath "$O/lib/libcudnn_ops.so.9")"
printf '[activate]\nredirect = true\n' >"$CDM_CONFIG"
OUT=$(bash -c 'eval "$("$1" activate --shell bash)" && "$2" "$3/loads.py" "$4/lib"' _ \
  "$CDM" "$PY" "$W" "$O")
check "[activate] redirect = true does the same" \
  test "$(printf '%s\n' "$OUT" | sed -n 's/^version //p')" = 90100
CDM_AUDIT_LIBRARY=$SCRATCH/none.so run_cdm activate --shell bash
expect_rc 0 "without cdm-audit.so, [activate] redirect still activates"
expect_err "warning: cuDNN loads are not redirected to 9.1.0.70-cuda12: no cdm-audit.so" "and warns"
check "without LD_AUDIT" sh -c '! printf "%s\n" "$1" | grep -q LD_AUDIT' _ "$OUT"
: >"$CDM_CONFIG"
CDM_AUDIT_LIBRARY=$SCRATCH/none.so run_cdm activate --redirect --shell bash
expect_rc 1 "without cdm-audit.so, --redirect is refused"
expect_err "cannot redirect cuDNN loads to 9.1.0.70-cuda12: no cdm-audit.so .*CDM_AUDIT_LIBRARY" \
  "saying what to do"
run_cdm activate --redirect --auto --shell bash
expect_rc 2 "--redirect with --auto is a usage error"

# cdm doctor --exec shows the difference
run_cdm doctor --json -- "$PY" "$W/loads.py" "$O/lib"
check "cdm doctor -- CMD: the copy opened by path and the install's graph library, a mix" \
  test "$(json '[c["status"] for c in d["checks"] if c["name"] == "run.cudnn"]')" = "['fail']"
run_cdm doctor --exec --json -- "$PY" "$W/loads.py" "$O/lib"
check "cdm doctor --exec -- CMD: every cuDNN library from the install" \
  test "$(json '[c["status"] for c in d["checks"] if c["name"] == "run.cudnn"]')" = "['ok']"
check "and the loaded list says so" \
  test "$(json 'sorted({l["install"] for l in d["loaded"] if l["kind"] == "cudnn"})')" = "['9.1.0.70-cuda12']"

# the command's status is cdm's
run_cdm exec -- sh -c 'echo out; echo err >&2; exit 7'
expect_rc 7 "the command's exit status is cdm's"
check "its output passes untouched" test "$OUT|$ERR" = "out|err"
run_cdm exec -- no-such-command-here
expect_rc 127 "a command that does not exist: 127, as a shell says"
expect_err "cannot run 'no-such-command-here'" "naming it"
# A folder on PATH that this user cannot search (another user's home): execvp says EACCES,
# a shell skips it and says 127; so does cdm. Root searches every folder: no such case.
if [ "$(id -u)" = 0 ]; then
  skip "a PATH folder that cannot be searched is skipped, as a shell skips it" "root can search every folder"
else
  mkdir -p "$SCRATCH/closed" && chmod 000 "$SCRATCH/closed"
  PATH="$SCRATCH/closed:$PATH" run_cdm exec -- no-such-command-here
  expect_rc 127 "a PATH folder that cannot be searched is skipped, as a shell skips it"
  chmod 700 "$SCRATCH/closed"
  printf '#!/bin/sh\n' >"$SCRATCH/closed/not-executable" && chmod 600 "$SCRATCH/closed/not-executable"
  PATH="$SCRATCH/closed:$PATH" run_cdm exec -- not-executable
  expect_rc 126 "a file on PATH that cannot be run: 126, as a shell says"
fi
run_cdm exec
expect_rc 2 "no command is a usage error"
cd "$SCRATCH" || exit 1
mkdir -p "$SCRATCH/none"
run_cdm exec "$SCRATCH/none" -- true
expect_rc 1 "a folder without a link or pin fails"
expect_err "cdm link" "saying what to run"

done_testing
