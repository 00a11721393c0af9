# cdm install VERSION looks locally first: the store, then the source folders (the user's
# Downloads folder when [install] sources names none), and only then the network. Checked
# under strace: no socket is connected when the version is at hand.
. "$TESTS_DIR/cli/lib.sh"

PY=$(command -v python3) || { skip_tool "local first" "no python3 to write wheels"; done_testing; exit; }
mkdir -p "$SCRATCH/wheels" "$HOME/Downloads"
whl=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu12 9.1.0.70)
# a mirror that is not there: any download would try to connect to it, and fail
export CDM_FETCH_BASE=http://127.0.0.1:9/redist/

# connects CMD...: runs cdm under strace; its status in RC, and CONNECTS the number of
# connect() calls to an address of the Internet family it made.
# shellcheck disable=SC2034 # RC and ERR are read by expect_rc and expect_err (lib.sh)
connects() {
  # LeakSanitizer cannot run under ptrace: the sanitized cdm goes without its leak check here
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -qq -e trace=connect -o "$SCRATCH/strace.log" "$CDM" "$@" >"$SCRATCH/out" 2>"$SCRATCH/stderr"
  RC=$?
  ERR=$(cat "$SCRATCH/stderr")
  CONNECTS=$(grep -c 'AF_INET' "$SCRATCH/strace.log")
}
if ! command -v strace >/dev/null; then
  skip_tool "local first, under strace" "strace is not installed"
  done_testing
  exit
fi

# The check itself: a version nowhere at hand does go to the network.
connects install 9.1
expect_rc 1 "a version neither installed nor in Downloads is looked for on the mirror"
check "which strace sees as a connection (the check can see one)" test "$CONNECTS" -ge 1

run_cdm install "$whl"
expect_rc 0 "the wheel installs"
connects install 9.1
expect_rc 0 "cdm install 9.1 with 9.1.0.70 installed succeeds"
expect_err "9.1.0.70-cuda12 is installed \\(from wheel '$(basename "$whl")'\\); nothing to do" "saying it is installed, and from what"
check "without connecting anywhere" test "$CONNECTS" -eq 0
connects install 9.1 --cuda 12 --json
check "--json says nothing changed" test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changed"])' "$SCRATCH/out")" = False
check "again without a connection" test "$CONNECTS" -eq 0

run_cdm remove 9.1
expect_rc 0 "removed again"
cp "$whl" "$HOME/Downloads/"
connects install 9.1
expect_rc 0 "with the wheel in ~/Downloads, cdm install 9.1 installs it"
check "without connecting anywhere" test "$CONNECTS" -eq 0
run_cdm list --json
check "the install came from the Downloads folder's wheel" \
  test "$(json '[i["source"] for i in d if i["id"] == "9.1.0.70-cuda12"][0]')" = wheel

connects install 9.1 --force
expect_rc 0 "--force installs it again from its file"
check "from Downloads, still without a connection" test "$CONNECTS" -eq 0

# [install] sources replaces the Downloads folder: it is not looked in then.
mkdir -p "$SCRATCH/elsewhere"
printf '[install]\nsources = %s\n' "$SCRATCH/elsewhere" >"$CDM_CONFIG"
run_cdm remove 9.1
connects install 9.1
expect_rc 1 "with [install] sources set, the Downloads folder is not looked in"
check "and the mirror is tried" test "$CONNECTS" -ge 1

done_testing
