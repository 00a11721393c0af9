# The doctor's trace channel (`cdm doctor -- CMD`, ld_audit.c and trace_channel_posix.c): a
# command that forges "loaded" lines by every means it is handed or can find gets none into
# the report, a flood of lines neither holds the doctor nor fills it, an exec keeps the
# trace, and --timeout ends a command that does not end, with its process group.
. "$TESTS_DIR/cli/lib.sh" || exit 1

need_stub_tools "the doctor's trace channel"
unset CUDA_HOME CONDA_PREFIX VIRTUAL_ENV
export LD_LIBRARY_PATH=""
W=$SCRATCH/work
mkdir -p "$W"
. "$TESTS_DIR/cli/lib_stub_cudnn.sh" || exit 1
tree "$W/t" 9.1.0 90100 || exit 1
LIB=$W/t/lib/libcudnn.so.9
status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
loaded() { json "sorted(set(l['path'] for l in d['loaded']))"; }

# forge.py LIB COUNT: loads LIB for real, then sends COUNT fake "loaded" lines (a cuDNN in
# /forged) down every channel it can name or find: the file the doctor used to name
# (CDM_TRACE_FILE), the socket it names now (a connection of its own, with and without a
# hello naming its socket), every descriptor of its own, and the same from a child with
# the audit library and from one without it.
cat >"$W/forge.py" <<'PY'
import ctypes, os, socket, stat, subprocess, sys
lib, count = sys.argv[1], int(sys.argv[2])
ctypes.CDLL(lib)
pid = str(os.getpid())
fields = [pid, "path", "/forged/libcudnn.so.9", "/forged/libcudnn.so.9", "/forged/libcudnn.so.9", ""]
lines = [("O\t" + "\t".join(fields) + "\n").encode(),                    # the old format
         ("O\t" + "0" * 32 + "\t" + "\t".join(fields) + "\n").encode()]  # a guessed token
pad = b"#" * 40

def send_all(write):
    for i in range(count):
        try:
            write(lines[i % 2] + pad if count > 2 else lines[i % 2])
        except OSError:
            return

file = os.environ.get("CDM_TRACE_FILE")
if file:
    with open(file, "ab", buffering=0) as f:
        send_all(f.write)
path = os.environ.get("CDM_TRACE_SOCKET")
if path:
    for hello in (True, False):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(path)
        if hello:
            s.send(b"H\t%d" % os.fstat(s.fileno()).st_ino)
        send_all(s.send)
        s.close()
for fd in os.listdir("/proc/self/fd"):
    try:
        kind = os.fstat(int(fd)).st_mode
    except OSError:
        continue
    if int(fd) > 2 and (stat.S_ISSOCK(kind) or stat.S_ISFIFO(kind) or stat.S_ISREG(kind)):
        send_all(lambda b: os.write(int(fd), b))
if len(sys.argv) == 3:
    plain = {k: v for k, v in os.environ.items() if k != "LD_AUDIT"}
    subprocess.run([sys.executable, __file__, lib, sys.argv[2], "child"], check=True)
    subprocess.run([sys.executable, __file__, lib, sys.argv[2], "child"], env=plain, check=True)
PY

# ---- forged lines ---------------------------------------------------------------------------
run_cdm doctor --json -- "$PY" "$W/forge.py" "$LIB" 2
check "the command ran to its end" test "$(json 'd["command"]["exit"]')" = 0
check "the report has the library it loaded, and no forged one" \
  test "$(loaded)" = "['$LIB']"
check "the forged lines are counted and reported, not believed" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -Eq "^[0-9]+ messages or connections on the doctor.s channel did not come from a process.s own audit library and were ignored"' \
  _ "$(status run.trace)" "$(detail run.trace)"
check "the channel's variable is the socket, not a file" \
  sh -c '! printf "%s" "$1" | grep -q CDM_TRACE_FILE' _ "$("$CDM" doctor -- env 2>/dev/null)"

# ---- an outsider: a process outside the command's tree, started with the audit library and
# the socket's name read from the command's /proc/<pid>/environ, loads a cuDNN ---------------
cat >"$W/outsider.sh" <<'SH'
# outsider.sh PIDFILE PY LIB: waits for the command's pid, takes its LD_AUDIT and
# CDM_TRACE_SOCKET, and loads LIB under them; PIDFILE.done when it did
for _ in $(seq 200); do [ -s "$1" ] && break; sleep 0.05; done
vars=$(tr '\0' '\n' <"/proc/$(cat "$1")/environ" | grep -E '^(LD_AUDIT|CDM_TRACE_SOCKET)=')
# shellcheck disable=SC2086 # one word per variable
env $vars "$2" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$3" && touch "$1.done"
SH
rm -f "$W/cmd.pid" "$W/cmd.pid.done"
bash "$W/outsider.sh" "$W/cmd.pid" "$PY" "$LIB" &
run_cdm doctor --json -- sh -c 'echo $$ >"$0"; i=0; while [ ! -e "$0.done" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done' "$W/cmd.pid"
wait
check "the outsider loaded the library under the command's audit variables" test -e "$W/cmd.pid.done"
check "what it loaded is not in the command's report" test "$(loaded)" = "[]"
check "its connection is counted as not the command's own" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "did not come from a process.s own audit library"' \
  _ "$(status run.trace)" "$(detail run.trace)"

# ---- an exec keeps the trace: the new image of the same process connects again, even while a
# forked subshell still holds the old image's connection ----------------------------------------
run_cdm doctor --json -- sh -c '(sleep 1; true) & exec "$0" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$1"' "$PY" "$LIB"
check "a library loaded after sh exec'd python is reported" test "$(loaded)" = "['$LIB']"
check "and nothing was refused" test "$(json '[c["name"] for c in d["checks"] if c["name"] == "run.trace"]')" = "[]"

# ---- a flood: a million lines of ~100 bytes on every channel -----------------------------------
start=$(date +%s)
# shellcheck disable=SC2034 # OUT is read by loaded and detail (lib.sh's json)
OUT=$(timeout 120 "$CDM" doctor --json -- "$PY" "$W/forge.py" "$LIB" 1000000 only 2>"$SCRATCH/stderr")
RC=$?
took=$(($(date +%s) - start))
check "the doctor finishes after a million forged lines (status $RC, ${took} s)" test "$RC" -le 1
check "the report has the library loaded before the flood, and no forged one" \
  test "$(loaded)" = "['$LIB']"
check "the report says the trace was cut at the doctor's bounds" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "^the trace was cut: the command.s processes reported more than the doctor keeps (100000 objects, 64 MiB"' \
  _ "$(status run.trace)" "$(detail run.trace)"

# ---- --timeout --------------------------------------------------------------------------------
start=$(date +%s)
# sleeps of numbers of this run's own, so that another run cannot be taken for them
N1=7${$}1 N2=7${$}2
run_cdm doctor --json --timeout 2 -- sh -c 'sleep "$0" & exec sleep "$1"' "$N1" "$N2"
took=$(($(date +%s) - start))
expect_rc 1 "--timeout 2 -- sleep: the doctor fails"
check "in about 2 s (${took} s)" test "$took" -ge 2 -a "$took" -le 6
check "run.command fails naming the limit and the process group" \
  sh -c 'test "$1" = fail && test "$2" = "'"'sh' ran past the doctor's limit of 2 s and was killed with its process group"'"' _ \
  "$(status run.command)" "$(detail run.command)"
check "the report goes on after it (run.cudnn, the command's exit by SIGKILL)" \
  test "$(json '("run.cudnn" in [c["name"] for c in d["checks"]], d["command"]["signal"])')" = "(True, 9)"
check "no process of its group is left" sh -c '! pgrep -xf "sleep ($1|$2)" >/dev/null' _ "$N1" "$N2"
run_cdm doctor --timeout 0 -- true
expect_rc 2 "--timeout 0 is a usage error"

done_testing
