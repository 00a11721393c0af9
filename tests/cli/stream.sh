# A .tar.xz downloaded by `cdm install VERSION` is unpacked while it arrives: files are in
# the staging folder while the partial download is still short of its size. A kill at any
# point leaves nothing installed and the next install resumes the download; Ctrl-C says
# what it kept; the install is recorded only with the whole archive's hash. The mirror
# sends at 200 KB/s (a 0.5 MB archive: about 2.6 s), so that there are points to stop at:
# each kill comes once the partial has grown by 40 KB more.
. "$TESTS_DIR/cli/lib.sh"
export MIRROR_RATE=200000
. "$TESTS_DIR/cli/lib_mirror.sh"
mirror_up

export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base paced)
DL=$CDM_ROOT/downloads
ID=9.27.0.48-cuda12
A=$MIRROR/cudnn/linux-x86_64/$A927_12
size=$(stat -c %s "$A")
partial_size() { stat -c %s "$DL/$A927_12.partial" 2>/dev/null || echo 0; }
staged_files() { find "$CDM_ROOT/.staging" -type f 2>/dev/null | wc -l; }
installed() { "$CDM" list --json 2>/dev/null | grep -c "\"$ID\"" || true; }
install_bg() { "$CDM" install 9.27 --cuda 12 >"$SCRATCH/out" 2>"$SCRATCH/err" & pid=$!; }

# ---- unpacked while it arrives ------------------------------------------------------------
install_bg
both=no
while kill -0 "$pid" 2>/dev/null; do
  got=$(partial_size)
  if [ "$got" -gt 0 ] && [ "$got" -lt "$size" ] && [ "$(staged_files)" -gt 0 ]; then
    both=yes
    diag "files in staging with $got of $size bytes downloaded"
    break
  fi
  sleep 0.05
done
wait "$pid"
rc=$?
check "the install from the mirror succeeds" test "$rc" -eq 0
check "files were unpacked while the download was still short of its size" test "$both" = yes
check "it says it unpacks as it downloads" grep -q "unpacking '$A927_12' as it downloads" "$SCRATCH/err"
run_cdm verify "$ID"
expect_rc 0 "the streamed install verifies"
run_cdm list --json
check "it is recorded with the archive's hash" \
  test "$(json "[i['sha256'] for i in d if i['id'] == '$ID'][0]")" = "$(sha256sum "$A" | cut -d' ' -f1)"
check "the finished download is deleted" test ! -e "$DL/$A927_12.partial"

# ---- a kill at any point ------------------------------------------------------------------
# (each kill comes once the partial has grown by another step: a loaded machine starts late)
run_cdm remove "$ID"
expect_rc 0 "removed again"
: >"$SERVER_LOG"
# grown_past N: wait (up to 20 s) until the install's partial holds more than N bytes
grown_past() {
  for _ in $(seq 400); do
    [ "$(partial_size)" -gt "$1" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
before=0
for step in 1 2 3; do
  install_bg
  grown_past $((before + 40000))
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  got=$(partial_size)
  check "kill $step: nothing installed" test "$(installed)" -eq 0 -a ! -e "$CDM_ROOT/$ID"
  check "kill $step: the partial grew ($before to $got of $size bytes)" \
    test "$got" -gt "$before" -a "$got" -lt "$size"
  before=$got
done
install_bg
wait "$pid"
rc=$?
check "the next install completes" test "$rc" -eq 0
check "resuming the download, not starting it again" \
  grep -q "resuming '$A927_12' at byte $before of $size" "$SCRATCH/err"
check "the server was asked for the rest (a range from byte $before)" \
  test "$(requests "e['range'] == 'bytes=$before-' and e['status'] == 206")" -ge 1
run_cdm verify "$ID"
expect_rc 0 "and the install verifies"
check "no staging folder is left" test "$(staged_files)" -eq 0

# ---- a kill at each step of the install itself ----------------------------------------------
# (the mirror at full speed: the first entry unpacked, everything flushed, the folder renamed
# into place, the index written) then an install without the kill
for point in extract-entry extracted renamed recorded; do
  run_cdm remove "$ID"
  rm -f "$DL/$A927_12.partial"
  CDM_FETCH_BASE=$(base ok) CDM_CRASH_AT=$point run_cdm install 9.27 --cuda 12
  run_cdm list --json
  state=$(json "'installed' if '$ID' in [i['id'] for i in d] else 'absent'")
  case $point in
    extract-entry | extracted) want=absent ;;
    *) want=either ;;
  esac
  check "killed at '$point': the install is $state (wanted: $want)" \
    test "$want" = either -o "$state" = "$want"
  CDM_FETCH_BASE=$(base ok) run_cdm install 9.27 --cuda 12
  expect_rc 0 "after the kill at '$point', the install completes"
  run_cdm verify "$ID"
  expect_rc 0 "and verifies"
done

# ---- Ctrl-C --------------------------------------------------------------------------------
run_cdm remove "$ID"
rm -f "$DL/$A927_12.partial" # whole, left by the kill after the rename above
install_bg
grown_past 40000
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C stops the install (status $rc)" test "$rc" -ne 0
check "saying it was interrupted and the bytes so far stay for the next run" \
  grep -q "interrupted.*bytes downloaded so far stay in '.*\.partial' for the next run" "$SCRATCH/err"
check "nothing installed after Ctrl-C" test "$(installed)" -eq 0 -a ! -e "$CDM_ROOT/$ID"
check "the partial is kept" test "$(partial_size)" -gt 0

# ---- the partial cut short by another program while it is read ----------------------------
# The install must not wait or spin at the end it was told of. The download writes on at its
# own offset (a hole where the cut was): either the bytes read still match the manifest and
# the install stands, verified, or it fails with nothing installed.
run_cdm remove "$ID"
rm -f "$DL/$A927_12.partial"
timeout 60 "$CDM" install 9.27 --cuda 12 >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
grown_past 40000
: >"$DL/$A927_12.partial"
wait "$pid"
rc=$?
check "a partial cut short meanwhile does not hang the install (status $rc)" test "$rc" -ne 124
if [ "$rc" -eq 0 ]; then
  run_cdm verify "$ID"
  expect_rc 0 "what it installed verifies"
else
  check "nothing installed from a partial cut short" test "$(installed)" -eq 0 -a ! -e "$CDM_ROOT/$ID"
fi
run_cdm remove "$ID"

# ---- wrong bytes, read before the download knows -------------------------------------------
rm -f "$DL/$A927_12.partial"
CDM_FETCH_BASE=$(base wrong) run_cdm install 9.27 --cuda 12
expect_rc 1 "an archive with a changed byte is refused"
expect_err "does not match its manifest.*deleted and nothing was installed" \
  "with the download's own words"
check "nothing installed from wrong bytes" test "$(installed)" -eq 0 -a ! -e "$CDM_ROOT/$ID"

done_testing
