# cdm.exe downloads under Wine, through WinHTTP, from the same loopback mirror as the
# Linux scenarios (plain HTTP: TLS with the system's certificate store and the system
# proxy need a real Windows, see docs/windows.md).
. "$TESTS_DIR/win/lib.sh"
CDM_CONFIG_POSIX=$SCRATCH/config.ini
. "$TESTS_DIR/cli/lib_mirror.sh"

export MIRROR_RATE=300000 # the paced mode below: a 0.6 MB zip in about 2 s
mirror_up
fetch_config retries=0 timeout=10
export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base ok)
DL=$CDM_ROOT_POSIX/downloads

run_cdm available --json
expect_rc 0 "cdm available --json through WinHTTP"
check "this platform's archives: 8.8.0.121 cuda11 and 9.27.0.48 cuda13 for windows-x86_64" \
  test "$(json '[(o["version"], o["cuda"], o["platform"]) for o in d]')" = \
  "[('8.8.0.121', 11, 'windows-x86_64'), ('9.27.0.48', 13, 'windows-x86_64')]"

run_cdm install 9.27 --cuda 13 --json
expect_rc 0 "cdm install 9.27 --cuda 13 downloads, verifies and installs"
check "as 9.27.0.48-cuda13, downloaded" test "$(json 'd["id"], d["downloaded"]')" = "('9.27.0.48-cuda13', True)"
check "with the archive's hash (BCrypt while downloading)" \
  test "$(json 'd["sha256"]')" = "$(sha256sum "$MIRROR/cudnn/windows-x86_64/$A927_WIN" | cut -d' ' -f1)"
check "its DLLs are in the store" test -n "$(ls "$CDM_ROOT_POSIX/9.27.0.48-cuda13/bin/x64" 2>/dev/null | grep dll)"
check "the download is gone once installed" test -z "$(ls -A "$DL" 2>/dev/null)"

CDM_FETCH_BASE=$(base wrong) run_cdm install 8.8.0 --cuda 11
expect_rc 1 "a tampered archive is refused"
expect_err "does not match its manifest.*deleted and nothing was installed" "saying so"
check "no partial is left" test ! -e "$DL/$A880_WIN.partial"
check "nothing was installed" test ! -e "$CDM_ROOT_POSIX/8.8.0.121-cuda11"

CDM_FETCH_BASE=$(base cut) run_cdm install 8.8.0 --cuda 11
expect_rc 1 "a connection cut at half fails"
expect_err "kept in .*partial.*run the command again to resume" "the bytes are kept"
kept=$(stat -c %s "$DL/$A880_WIN.partial" 2>/dev/null || echo 0)
check "the partial holds half the archive" \
  test "$kept" -eq $(($(stat -c %s "$MIRROR/cudnn/windows-x86_64/$A880_WIN") / 2))
run_cdm install 8.8.0 --cuda 11 --json
expect_rc 0 "run again: the download resumes and installs"
check "the server saw WinHTTP's range request from byte $kept, answered 206" \
  test "$(requests "e['range'] == 'bytes=$kept-' and e['status'] == 206")" = 1

CDM_FETCH_BASE=$(base norange) run_cdm install 8.8.0 --cuda 11 --force --json
expect_rc 0 "a server that ignores ranges is fine too (--force downloads again)"

offline=$SCRATCH/offline
run_cdm fetch 9.27 --cuda 13 --into "$(wpath "$offline")" --json
expect_rc 0 "cdm fetch --into a folder"
check "the archive and the manifest are there" \
  test -f "$offline/$A927_WIN" -a -f "$offline/redistrib_9.27.0.json"
# shellcheck disable=SC1003 # '\\' is tr's escaped backslash, not an escaped quote
CDM_FETCH_BASE="file:///$(wpath "$offline" | tr '\\' /)" run_cdm available --json
check "the folder as a file:// base offers what it holds" test "$(json 'len(d)')" = 1
printf '[install]\nsources = %s\n' "$(wpath "$offline")" >"$CDM_CONFIG_POSIX"
CDM_FETCH_BASE=off run_cdm --root "$(wpath "$SCRATCH/store2")" install 9.27 --cuda 13 --json
expect_rc 0 "and offline as [install] sources"

# A zip with 600 KB of random bytes as its third entry, from a mirror sending at 300 KB/s:
# unpacked while it downloads, its directory and the headers past that entry asked for by
# WinHTTP range requests ahead of the download.
ZIP=cudnn-windows-x86_64-9.28.0.10_cuda13-archive.zip
zip_with_payload "$SCRATCH/$ZIP"
python3 "$TESTS_DIR/mirror/make_mirror.py" "$MIRROR" 9.28.0 "windows-x86_64/cuda13=$SCRATCH/$ZIP"
: >"$SERVER_LOG"
CDM_FETCH_BASE=$(base paced) run_cdm install 9.28 --cuda 13
expect_rc 0 "a zip from a mirror at 300 KB/s installs"
expect_err "unpacking '$ZIP' as it downloads" "unpacked while it downloads"
check "its directory was asked for by a range with an end, answered 206" \
  test "$(requests "e['path'].endswith('$ZIP') and (e['range'] or '-').split('-')[1] != '' and e['status'] == 206")" -ge 1
run_cdm verify 9.28.0.10-cuda13
expect_rc 0 "and it verifies"

CDM_FETCH_BASE=http://127.0.0.1:1/ run_cdm available
expect_rc 1 "nothing listening"
expect_err "cannot (connect to|download)" "is an error that says so"

done_testing
