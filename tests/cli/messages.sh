# What a user reads when something is in the way: the store's lock held by another cdm,
# remove of what is not installed or still linked (by folders present or gone).
. "$TESTS_DIR/cli/lib.sh" || exit 1

run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
A=9.1.0.70-cuda12
check "a writer leaves a note of who holds the lock: its pid and command" \
  grep -Eq "^pid [0-9]+ \(cdm install .*9\.1\.0\.70_cuda12-archive\.tar\.xz\)$" "$CDM_ROOT/.lock-holder"

# ---- remove -----------------------------------------------------------------------------
run_cdm remove 7.6
expect_rc 1 "removing a version that is not installed fails"
expect_err "^cdm: cannot remove 7\.6: no installed version matches it; see 'cdm list'$" \
  "saying nothing matches, not to install it"

mkdir -p "$SCRATCH/gone" "$SCRATCH/here"
run_cdm link "$SCRATCH/gone" 9.1
run_cdm link "$SCRATCH/here" 9.1
rm -rf "$SCRATCH/gone"
run_cdm remove 9.1
expect_rc 1 "remove refuses while projects link to it"
expect_err "linked by '$SCRATCH/here'; run 'cdm unlink' there" "a project present: unlink it there"
expect_err "recorded as linked by '$SCRATCH/gone', project folder\(s\) that no longer exist; run 'cdm gc'" \
  "a project folder gone: cdm gc, not 'cdm unlink' there"
run_cdm remove 9.1 --force
expect_rc 0 "remove --force"
expect_err "unlinked '$SCRATCH/here' from $A \(--force\)" "names each project it unlinked"
expect_err "dropped the record of '$SCRATCH/gone' linking $A" "and each record of a folder gone"

# ---- the store's lock ---------------------------------------------------------------------
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
if command -v flock >/dev/null; then
  printf 'pid 4242 (cdm install big.zip)\n' >"$CDM_ROOT/.lock-holder"
  flock "$CDM_ROOT/.lock" sleep 2.5 &
  holder=$!
  sleep 0.5
  start=$(date +%s%N)
  run_cdm gc
  took=$((($(date +%s%N) - start) / 1000000))
  wait "$holder"
  expect_rc 0 "gc waits for the store's lock, then runs"
  expect_err "^cdm: warning: waiting for the store's lock '$CDM_ROOT/\.lock', held by pid 4242 \(cdm install big\.zip\)$" \
    "saying who holds the lock (pid, command)"
  check "and it did wait (${took} ms)" test "$took" -ge 1500
  flock "$CDM_ROOT/.lock" sleep 2 &
  holder=$!
  sleep 0.3
  run_cdm link "$SCRATCH/here" 9.1
  check "a link writes only the user's state: it does not wait for the store's lock" \
    sh -c '[ "$2" = 0 ] && ! printf "%s" "$1" | grep -q waiting' _ "$ERR" "$RC"
  wait "$holder"
  run_cdm unlink "$SCRATCH/here"
else
  skip_tool "waiting on the store's lock" "flock (util-linux) is not installed"
fi

# ---- cdm gc --verbose names what it removes --------------------------------------------------
mkdir -p "$SCRATCH/short"
run_cdm link "$SCRATCH/short" 9.1
rm -rf "$SCRATCH/short"
CDM_CRASH_AT=extracted "$CDM" install "$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)" >/dev/null 2>&1
run_cdm gc --verbose
expect_rc 0 "gc --verbose"
expect_err "^cdm: removed '$CDM_ROOT/\.staging/9\.3\.0\.75-cuda12\.[0-9]+\.tmp'$" "names the leftover it removed"
expect_err "^cdm: project folder '$SCRATCH/short' is gone: it no longer counts as using its version$" \
  "and the record of a project folder gone"
expect_err "^removed 2 leftover\(s\)$" "then counts them"

# ---- did you mean, and completing --to -------------------------------------------------------
run_cdm instal x
expect_rc 2 "a mistyped command is a usage error"
expect_err "^cdm: 'instal' is not a command; did you mean 'install'\? \(see 'cdm help'\)$" "naming the nearest command"
run_cdm lsit
expect_rc 2 "a command with two letters swapped is a usage error"
expect_err "^cdm: 'lsit' is not a command; did you mean 'list'\? \(see 'cdm help'\)$" "naming the command (a swap is one edit)"
run_cdm remove 9.1 --forse
expect_rc 2 "a mistyped option is a usage error"
expect_err "^cdm: unknown option '--forse'; did you mean '--force'\?$" "naming the nearest option"
run_cdm link "$SCRATCH/here" 9.1.0.07
expect_rc 1 "a mistyped version is not linked"
expect_err "cuDNN 9\.1\.0\.07 is not installed.*; did you mean 9\.1\.0\.70\?$" "naming the nearest installed version"
run_cdm remove 7.6
check "no suggestion when nothing is near" sh -c '! printf "%s" "$1" | grep -q "did you mean"' _ "$ERR"
run_cdm link "$SCRATCH/here" 9.1
run_cdm history "$SCRATCH/here" --json
want=$(json '" ".join(str(g["generation"]) for g in reversed(d) if not g["current"])')
run_cdm complete --current= -- rollback "$SCRATCH/here" --to
check "rollback --to completes the project's generations, newest first, not the current one ($want)" \
  test "$(printf '%s' "$OUT" | tr '\n' ' ')" = "$want"
OUT=$(cd "$SCRATCH/here" && "$CDM" complete --current=3 -- rollback --to)
check "and without PROJECT, the nearest project's" test "$OUT" = 3
run_cdm complete --current=9.1 -- doctor --cudnn
check "doctor --cudnn completes the installed versions" test "$OUT" = 9.1.0.70-cuda12

# ---- Ctrl-C during an install ----------------------------------------------------------------
# CDM_CRASH_SIGNAL=INT turns the crash point into a Ctrl-C (SIGINT) after the first entry; the
# archive's padding leaves blocks to read, so the install notices it and stops.
big=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz --pad 4000000)
CDM_CRASH_AT=extract-entry CDM_CRASH_SIGNAL=INT run_cdm install "$big"
expect_rc 130 "an install interrupted by Ctrl-C exits 130"
expect_err "^cdm: install of '$big' interrupted; removed its unfinished files in '$CDM_ROOT/\.staging/9\.2\.0\.82-cuda12\.[0-9]+\.tmp'$" \
  "saying it removed its unfinished files, and where"
check "nothing of it is left in .staging" empty_dir "$CDM_ROOT/.staging"
check "and it is not installed" test ! -e "$CDM_ROOT/9.2.0.82-cuda12"
run_cdm list
check "the next command finds nothing to clean up" sh -c '! printf "%s" "$1" | grep -q leftover' _ "$ERR"
(trap '' INT; "$CDM" install "$big" >/dev/null 2>&1)
check "an install not interrupted still works after" test -d "$CDM_ROOT/9.2.0.82-cuda12"

# The same with a zip, whose files are written by worker threads with contexts of their own:
# the Ctrl-C reaches them too.
zip=$(fixture cudnn-windows-x86_64-9.2.0.82_cuda12-archive.zip --pad 4000000)
W=$SCRATCH/windows-store
CDM_ROOT=$W CDM_CRASH_AT=extract-entry CDM_CRASH_SIGNAL=INT run_cdm install "$zip" --platform windows-x86_64
expect_rc 130 "a zip install interrupted by Ctrl-C exits 130"
expect_err "^cdm: install of '$zip' interrupted; removed its unfinished files" "saying so"
check "the zip is not installed" test ! -e "$W/9.2.0.82-cuda12"
check "nothing of it is left in .staging" empty_dir "$W/.staging"

done_testing
