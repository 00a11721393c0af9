# cdm.exe waits for a program that holds a file open without sharing deletion, as antivirus
# scanners, the Search indexer and sync clients do with fresh files: a `cdm remove` whose
# file is held succeeds once the holder lets go, saying once, after 2 s, what it waits for;
# a shorter [windows] retry_seconds gives up after that long, and 0 fails at once; each
# failure names the file and what to do. The holder is tests/win/hold_file.c (Wine
# implements share modes: a held file's DeleteFileW and MoveFileExW answer error 32).
. "$TESTS_DIR/win/lib.sh"

if [ -z "${HOLD_FILE-}" ] || [ ! -f "$HOLD_FILE" ]; then
  skip_tool "a held file is waited for" "HOLD_FILE (tests/win/hold_file.c, built by meson) is missing"
  done_testing
  exit
fi

win88=$(fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip)
id=8.8.0.121-cuda11
CDM_CONFIG_POSIX=$SCRATCH/config.ini # the file that $CDM_CONFIG names for Windows
held=$CDM_ROOT_POSIX/$id/include/cudnn.h
wait_text='is held open by another program (an antivirus scanner?); waiting up to'
wait_re='is held open by another program \(an antivirus scanner\?\); waiting up to'

# hold SECONDS: hold_file on $held in the background ($HOLDER its process), back once it
# says "held"
hold() {
  : >"$SCRATCH/holder.out"
  "$WINE" "$HOLD_FILE" "$(wpath "$held")" "$1" >"$SCRATCH/holder.out" 2>&1 &
  HOLDER=$!
  local i
  # shellcheck disable=SC2034 # i counts the tries only
  for i in $(seq 300); do
    grep -q held "$SCRATCH/holder.out" && return 0
    kill -0 "$HOLDER" 2>/dev/null || break
    sleep 0.1
  done
  diag "hold_file did not hold '$held':" "$(cat "$SCRATCH/holder.out")"
  return 1
}

holder_running() { kill -0 "$HOLDER" 2>/dev/null; }

# remove_held SECONDS: `cdm remove 8.8.0` while $held is held for SECONDS; $TOOK, the
# seconds cdm ran. Fails (a test failing) when the file could not be held.
remove_held() {
  if ! hold "$1"; then
    not_ok "hold '$held' for $1 s"
    return 1
  fi
  local t0
  t0=$(date +%s.%N)
  run_cdm remove 8.8.0
  TOOK=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# ---- the default: wait, say so once, succeed ------------------------------------------
run_cdm install "$(wpath "$win88")"
expect_rc 0 "the 8.8.0 zip installs"
if remove_held 8; then
  expect_rc 0 "remove succeeds once the holder lets go (${TOOK} s)"
  check "it waited for the holder: the holder had ended when cdm did" sh -c '! kill -0 "$1" 2>/dev/null' _ "$HOLDER"
  check "the warning is given once" test "$(printf '%s\n' "$ERR" | grep -Fc "$wait_text 60 s")" -eq 1
  expect_err "'[^']*cudnn\\.h' $wait_re 60 s|a file in '[^']*${id}[^']*' $wait_re 60 s" \
    "naming the held file (or, on NTFS, the folder above it)"
  wait "$HOLDER"
  check "the holder held the file to the end (status 0)" test $? -eq 0
  run_cdm list --json
  check "the version is gone" test "$OUT" = "[]"
  check "nothing is left in .staging" test -z "$(ls -A "$CDM_ROOT_POSIX/.staging")"
fi

# ---- a shorter wait gives up after it, saying how long it waited ----------------------
printf '[windows]\nretry_seconds = 3\n' >"$CDM_CONFIG_POSIX"
run_cdm install "$(wpath "$win88")"
if remove_held 30; then
  expect_rc 1 "retry_seconds = 3: remove fails while the file is held (${TOOK} s)"
  check "after waiting about 3 s, not until the holder let go" holder_running
  check "it said what it waited for, once" test "$(printf '%s\n' "$ERR" | grep -Fc "$wait_text 3 s")" -eq 1
  expect_err "cannot delete '[^']*cudnn\\.h': .*still after 3 s: another program holds it open" \
    "the error names the file and how long cdm waited"
  expect_err "raise|wait longer with \\[windows\\] retry_seconds" "and says what to do"
  kill "$HOLDER" 2>/dev/null
  wait "$HOLDER" 2>/dev/null
fi

# ---- retry_seconds = 0: at once -------------------------------------------------------
: >"$CDM_CONFIG_POSIX"
run_cdm gc
check "cdm gc removes what the failed remove left once the holder is gone" \
  test -z "$(ls -A "$CDM_ROOT_POSIX/.staging")"
printf '[windows]\nretry_seconds = 0\n' >"$CDM_CONFIG_POSIX"
run_cdm install "$(wpath "$win88")"
expect_rc 0 "installed again"
if remove_held 30; then
  expect_rc 1 "retry_seconds = 0: remove fails at once while the file is held (${TOOK} s)"
  check "the holder still holds it: cdm did not wait" holder_running
  check "no waiting is announced" sh -c '! printf "%s" "$1" | grep -q "waiting up to"' _ "$ERR"
  expect_err "cannot delete '[^']*include.cudnn\\.h': .*another program holds it open .*\\[windows\\] retry_seconds" \
    "naming the file and the setting"
  kill "$HOLDER" 2>/dev/null
  wait "$HOLDER" 2>/dev/null
fi

# ---- the setting is checked -----------------------------------------------------------
printf '[windows]\nretry_seconds = soon\n' >"$CDM_CONFIG_POSIX"
run_cdm list
expect_rc 1 "retry_seconds = soon is refused"
expect_err "line 2: \\[windows\\] retry_seconds = 'soon': give a whole number of seconds" \
  "naming the line, the key and what to give"
: >"$CDM_CONFIG_POSIX"

done_testing
