# A .tar.xz downloaded by `cdm install VERSION` is unpacked while it arrives: files are in
# the staging folder while the partial download is still short of its size. A kill at any
# point leaves nothing installed and the next install resumes the download; Ctrl-C says
# what it kept; the install is recorded only with the whole archive's hash. The mirror
# sends at 200 KB/s (a 0.5 MB archive: about 2.6 s), so that there are points to stop at.
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
run_cdm remove "$ID"
expect_rc 0 "removed again"
: >"$SERVER_LOG"
before=0
for at in 0.3 0.6 0.5; do
  install_bg
  sleep "$at"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  got=$(partial_size)
  check "killed after $at s: nothing installed" test "$(installed)" -eq 0 -a ! -e "$CDM_ROOT/$ID"
  check "killed after $at s: the partial grew ($before to $got of $size bytes)" \
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

# ---- Ctrl-C --------------------------------------------------------------------------------
run_cdm remove "$ID"
install_bg
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C stops the install (status $rc)" test "$rc" -ne 0
check "saying the bytes so far are kept for the next run" \
  grep -q "interrupted" "$SCRATCH/err"
check "nothing installed after Ctrl-C" test "$(installed)" -eq 0 -a ! -e "$CDM_ROOT/$ID"
check "the partial is kept" test "$(partial_size)" -gt 0

# ---- wrong bytes, read before the download knows -------------------------------------------
rm -f "$DL/$A927_12.partial"
CDM_FETCH_BASE=$(base wrong) run_cdm install 9.27 --cuda 12
expect_rc 1 "an archive with a changed byte is refused"
expect_err "does not match its manifest.*deleted and nothing was installed" \
  "with the download's own words"
check "nothing installed from wrong bytes" test "$(installed)" -eq 0 -a ! -e "$CDM_ROOT/$ID"

done_testing
