# A .tar.xz downloaded by `cdm install VERSION` is unpacked while it arrives: files are in
# the staging folder while the partial download is still short of its size. A kill at any
# point leaves nothing installed and the next install resumes the download; Ctrl-C says
# what it kept; the install is recorded only with the whole archive's hash. The mirror
# sends at 200 KB/s (a 0.5 MB archive: about 2.6 s), so that there are points to stop at:
# each kill comes once the partial has grown by 40 KB more. A zip (Windows) the same way,
# its directory and headers asked for by range ahead of the download; and a wheel from a
# package index, its dist-info read ahead before anything is unpacked.
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
# while_short PARTIAL SIZE FIND_ARGS...: while the install $pid runs, whether a file that
# find(1) picks in staging is there while PARTIAL is still short of SIZE bytes (both=yes);
# then its status in rc
while_short() {
  local partial=$1 whole=$2 got
  shift 2
  both=no
  while kill -0 "$pid" 2>/dev/null; do
    got=$(stat -c %s "$partial" 2>/dev/null || echo 0)
    if [ "$got" -gt 0 ] && [ "$got" -lt "$whole" ] &&
      [ -n "$(find "$CDM_ROOT/.staging" "$@" 2>/dev/null | head -n1)" ]; then
      both=yes
      diag "unpacked files in staging with $got of $whole bytes downloaded"
      break
    fi
    sleep 0.05
  done
  wait "$pid"
  rc=$?
}

# ---- unpacked while it arrives ------------------------------------------------------------
install_bg
while_short "$DL/$A927_12.partial" "$size" -type f
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

# ---- a zip, unpacked while it arrives ------------------------------------------------------
# NVIDIA's Windows zip of a version of its own (9.28.0), with 600 KB of random bytes as its
# third entry: the headers after it lie past what the download brings first.
ZIP=cudnn-windows-x86_64-9.28.0.10_cuda13-archive.zip
ZID=9.28.0.10-cuda13
zip_with_payload "$SCRATCH/$ZIP"
python3 "$TESTS_DIR/mirror/make_mirror.py" "$MIRROR" 9.28.0 "windows-x86_64/cuda13=$SCRATCH/$ZIP"
zsize=$(stat -c %s "$SCRATCH/$ZIP")
zip_partial() { stat -c %s "$DL/$ZIP.partial" 2>/dev/null || echo 0; }
zip_bg() { "$CDM" install 9.28 --cuda 13 --platform windows-x86_64 >"$SCRATCH/out" 2>"$SCRATCH/err" & pid=$!; }
zip_installed() { "$CDM" list --json 2>/dev/null | grep -c "\"$ZID\"" || true; }
# ranged: requests for a range with an end (what is asked ahead of the download)
ranged() { requests "e['path'].endswith('$ZIP') and (e['range'] or '-').split('-')[1] != '' and e['status'] == 206"; }

: >"$SERVER_LOG"
zip_bg
while_short "$DL/$ZIP.partial" "$zsize" -name payload.bin -size +8k
check "the zip's install from the mirror succeeds" test "$rc" -eq 0
check "its entries were unpacked while the download was still short of its size" test "$both" = yes
check "it says it unpacks the zip as it downloads" grep -q "unpacking '$ZIP' as it downloads" "$SCRATCH/err"
check "its directory was asked for by range, ahead of the download" test "$(ranged)" -ge 1
run_cdm verify "$ZID"
expect_rc 0 "the streamed zip verifies"
run_cdm list --json
check "the zip is recorded with its hash" \
  test "$(json "[i['sha256'] for i in d if i['id'] == '$ZID'][0]")" = "$(sha256sum "$SCRATCH/$ZIP" | cut -d' ' -f1)"
check "the zip's finished download is deleted" test ! -e "$DL/$ZIP.partial"

# a kill once 150 KB came: nothing installed, and the next install resumes
run_cdm remove "$ZID"
zip_bg
for _ in $(seq 400); do
  [ "$(zip_partial)" -gt 150000 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
kept=$(zip_partial)
check "a killed zip install leaves nothing installed" test "$(zip_installed)" -eq 0 -a ! -e "$CDM_ROOT/$ZID"
check "and keeps its partial download ($kept of $zsize bytes)" test "$kept" -gt 0 -a "$kept" -lt "$zsize"
zip_bg
wait "$pid"
check "the next zip install completes" test $? -eq 0
check "resuming the zip's download" grep -q "resuming '$ZIP' at byte $kept of $zsize" "$SCRATCH/err"
run_cdm verify "$ZID"
expect_rc 0 "the resumed zip verifies"

# a server that sends other bytes by range than in the file: unpacked again from the file
run_cdm remove "$ZID"
CDM_FETCH_BASE=$(base paced-lie) run_cdm install 9.28 --cuda 13 --platform windows-x86_64
expect_rc 0 "a zip whose ranges lie still installs, from the whole file"
expect_err "sent other bytes of '$ZIP' by range than in the whole file; unpacking it again" \
  "saying the ranges disagreed with the file"
run_cdm verify "$ZID"
expect_rc 0 "and what it installed verifies"

# a server that takes no range: the zip is downloaded first, then unpacked
run_cdm remove "$ZID"
: >"$SERVER_LOG"
CDM_FETCH_BASE=$(base norange) run_cdm install 9.28 --cuda 13 --platform windows-x86_64
expect_rc 0 "a zip from a server without ranges installs"
check "no range was answered there" test "$(ranged)" -eq 0
run_cdm verify "$ZID"
expect_rc 0 "and verifies"

# wrong bytes: refused, nothing installed
run_cdm remove "$ZID"
rm -f "$DL/$ZIP.partial"
CDM_FETCH_BASE=$(base wrong) run_cdm install 9.28 --cuda 13 --platform windows-x86_64
expect_rc 1 "a zip with a changed byte is refused"
check "nothing installed from a wrong zip" test "$(zip_installed)" -eq 0 -a ! -e "$CDM_ROOT/$ZID"

# ---- a wheel, unpacked while it arrives -----------------------------------------------------
# A wheel of 600 KB from a package index (PEP 691: its size is known), its dist-info at its
# end read ahead by range before its files are unpacked.
WHL=$(python3 "$TESTS_DIR/make_wheel.py" "$SCRATCH" nvidia-cudnn-cu12 9.29.0.11 --large=600000)
WNAME=$(basename "$WHL")
WID=9.29.0.11-cuda12
python3 "$TESTS_DIR/mirror/make_index.py" "$MIRROR" simple "$WHL" >/dev/null
wsize=$(stat -c %s "$WHL")
wheel_bg() {
  "$CDM" install 9.29 --cuda 12 --from pypi >"$SCRATCH/out" 2>"$SCRATCH/err" & pid=$!
}
printf '[fetch]\nindex_url = http://127.0.0.1:%s/paced/simple/\n' "$PORT" >"$CDM_CONFIG"
: >"$SERVER_LOG"
wheel_bg
while_short "$DL/$WNAME.partial" "$wsize" -name 'libcudnn_engines_precompiled*' -size +8k
check "the wheel's install from the index succeeds" test "$rc" -eq 0
check "its files were unpacked while the download was still short of its size" test "$both" = yes
check "it says it unpacks the wheel as it downloads" grep -q "unpacking '$WNAME' as it downloads" "$SCRATCH/err"
run_cdm verify "$WID"
expect_rc 0 "the streamed wheel verifies"
check "the wheel's finished download is deleted" test ! -e "$DL/$WNAME.partial"

# a server whose ranges lie: the dist-info read ahead does not read (a CRC, a header), so it
# is read again from the whole file once the download is whole and checked
run_cdm remove "$WID"
printf '[fetch]\nindex_url = http://127.0.0.1:%s/paced-lie/simple/\n' "$PORT" >"$CDM_CONFIG"
: >"$SERVER_LOG"
run_cdm install 9.29 --cuda 12 --from pypi
expect_rc 0 "a wheel whose ranges lie installs, read again from the whole file"
check "ranges were asked for and lied about" \
  test "$(requests "e['path'].endswith('$WNAME') and e['mode'] == 'paced-lie' and e['status'] == 206")" -ge 1
run_cdm verify "$WID"
expect_rc 0 "and it verifies"
check "its download is deleted" test ! -e "$DL/$WNAME.partial"

done_testing
