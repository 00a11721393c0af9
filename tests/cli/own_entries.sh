# Links where cdm keeps a file or folder of its own (the pin, <root>/.staging, .lock-holder,
# .deployed, downloads/, a download's .partial): cdm never writes, reads or deletes through
# one; it refuses, naming the entry and what to do.
. "$TESTS_DIR/cli/lib.sh" || exit 1
. "$TESTS_DIR/cli/lib_mirror.sh"

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
run_cdm install "$a"
expect_rc 0 "a version to link"
VICTIM=$SCRATCH/victim
# victim: a folder outside the store with a file and an install's leftover look-alike
victim() {
  rm -rf "$VICTIM"
  mkdir -p "$VICTIM/9.1.0.70-cuda12.123.tmp"
  echo precious >"$VICTIM/notes.txt"
  echo precious >"$VICTIM/9.1.0.70-cuda12.123.tmp/x"
}
intact() { [ "$(cat "$VICTIM/notes.txt" 2>/dev/null)" = precious ] && [ -e "$VICTIM/9.1.0.70-cuda12.123.tmp/x" ]; }

# ---- the pin ------------------------------------------------------------------------------
P=$SCRATCH/project
mkdir -p "$P"
echo "the user's own file" >"$SCRATCH/bashrc"
ln -s "$SCRATCH/bashrc" "$P/.cudnn-version"
run_cdm link "$P" 9.1
check "a pin that is a link (a repository's .cudnn-version -> ~/.bashrc) is not written through" \
  test "$(cat "$SCRATCH/bashrc")" = "the user's own file"
expect_err "cannot write the pin '$P/.cudnn-version': it is a link" "the pin is named, and why"
check "the link stays as it was" test "$(readlink "$P/.cudnn-version")" = "$SCRATCH/bashrc"

# ---- <root>/.staging ----------------------------------------------------------------------
victim
rmdir "$CDM_ROOT/.staging"
ln -s "$VICTIM" "$CDM_ROOT/.staging"
run_cdm gc
expect_rc 1 "gc refuses a .staging that is a link"
expect_err "cannot use '$CDM_ROOT/.staging': it is a link where cdm keeps a folder of its own.*move it away" \
  "naming it and what to do"
check "and deletes nothing in the folder it leads to" intact
run_cdm install "$a" --force
expect_rc 1 "an install refuses it too"
expect_err "cannot use '$CDM_ROOT/.staging': it is a link" "naming it"
check "and writes nothing there" test "$(ls -A "$VICTIM" | wc -l)" = 2
run_cdm list
check "a reader (its recovery) deletes nothing there either" intact
rm "$CDM_ROOT/.staging"
mkdir "$CDM_ROOT/.staging"

# ---- .deployed (kept files, pruned by the recovery) -----------------------------------------
rm -rf "$VICTIM"
mkdir -p "$VICTIM"
echo precious >"$VICTIM/notes.txt"
ln -s "$VICTIM" "$CDM_ROOT/.deployed"
run_cdm gc
expect_rc 1 "gc refuses a .deployed that is a link"
expect_err "cannot use '$CDM_ROOT/.deployed': it is a link" "naming it"
check "and deletes nothing in the folder it leads to" test -e "$VICTIM/notes.txt"
rm "$CDM_ROOT/.deployed"

# ---- .lock-holder ---------------------------------------------------------------------------
echo "the user's own file" >"$SCRATCH/holder"
rm -f "$CDM_ROOT/.lock-holder"
ln -s "$SCRATCH/holder" "$CDM_ROOT/.lock-holder"
run_cdm gc
expect_rc 1 "a writer refuses a .lock-holder that is a link"
expect_err "cannot use '$CDM_ROOT/.lock-holder': it is a link" "naming it"
check "and does not write through it" test "$(cat "$SCRATCH/holder")" = "the user's own file"
rm "$CDM_ROOT/.lock-holder"
run_cdm gc
expect_rc 0 "gc goes on once they are gone"
check "the holder's note is a file of cdm's own" test -f "$CDM_ROOT/.lock-holder" -a ! -L "$CDM_ROOT/.lock-holder"

# ---- downloads/ and a .partial ----------------------------------------------------------------
victim
touch "$VICTIM/x.partial"
ln -s "$VICTIM" "$CDM_ROOT/downloads"
run_cdm gc
expect_rc 1 "gc refuses a downloads/ that is a link"
expect_err "cannot use '$CDM_ROOT/downloads': it is a link" "naming it"
check "and deletes no partial download in the folder it leads to" test -e "$VICTIM/x.partial"
mirror_up
fetch_config retries=0 timeout=5
export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base ok)
run_cdm install 8.8.0 --cuda 12
expect_rc 1 "a download refuses it too"
check "and writes nothing there" test -z "$(ls "$VICTIM" | grep -v -x -e notes.txt -e x.partial -e 9.1.0.70-cuda12.123.tmp)"
rm "$CDM_ROOT/downloads"
mkdir "$CDM_ROOT/downloads"
echo "the user's own file" >"$SCRATCH/outside"
ln "$SCRATCH/outside" "$CDM_ROOT/downloads/$A880_11.partial"
run_cdm install 8.8.0 --cuda 11
expect_rc 1 "a .partial that is a hard link to a file elsewhere is refused"
expect_err "cannot use '$CDM_ROOT/downloads/$A880_11.partial': it is a hard link to another file" \
  "naming it and what it is"
check "and that file is neither truncated nor written" test "$(cat "$SCRATCH/outside")" = "the user's own file"
rm "$CDM_ROOT/downloads/$A880_11.partial"
run_cdm install 8.8.0 --cuda 11
expect_rc 0 "the download goes on once it is gone"

done_testing
