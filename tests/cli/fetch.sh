# cdm install VERSION, cdm available and cdm fetch from a mirror on loopback (plain HTTP,
# served by the fault-injecting tests/mirror/server.py): downloads, verified hashes,
# resume, faults, locks, offline installs.
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_mirror.sh"

mirror_up
fetch_config retries=0 timeout=5
export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base ok)
DL=$CDM_ROOT/downloads
sha_of() { sha256sum "$1" | cut -d' ' -f1; }
archive_gets() { requests "e['path'].endswith('$1')"; }

# ---- what the mirror offers -------------------------------------------------------------
run_cdm available --json
expect_rc 0 "cdm available --json reads the manifests through the listing"
check "it lists this platform's five archives" test "$(json 'len(d)')" = 5
check "each with version, cuda, platform, size, sha256, url" \
  test "$(json 'all({"version","cuda","platform","size","sha256","url"} <= set(o) for o in d)')" = True
check "oldest first: 8.8.0.121 cuda11" test "$(json 'd[0]["version"], d[0]["cuda"]')" = "('8.8.0.121', 11)"
check "the per-build flat 8.9.7.29 manifest is read, its CUDA taken from the file name" \
  test "$(json '[o["cuda"] for o in d if o["version"]=="8.9.7.29"]')" = "[12]"
check "size and sha256 are the archive's" \
  test "$(json '[(o["size"],o["sha256"]) for o in d if o["url"].endswith("'"$A927_13"'")][0]')" = \
  "($(stat -c %s "$MIRROR/cudnn/linux-x86_64/$A927_13"), '$(sha_of "$MIRROR/cudnn/linux-x86_64/$A927_13")')"
check "the url is below the base" \
  test "$(json 'd[-1]["url"]')" = "$(base ok)cudnn/linux-x86_64/$A927_13"

run_cdm available 9.27 --platform windows-arm64 --json
check "windows-arm64 of 9.27.0: the cuda13 variant and the flat _cuda13.4 archive beside it" \
  test "$(json 'sorted(o["url"].rsplit("/",1)[1] for o in d)')" = "['$A927_ARM', '$A927_ARM_FLAT']"
run_cdm available 8.8 --platform all --cuda 12
expect_rc 0 "available VERSION --platform all --cuda N (text)"
check "lists 8.8.0 cuda12 for linux-x86_64 and linux-sbsa" \
  test "$(printf '%s\n' "$OUT" | grep -c '8.8.0.121 *12 ')" = 2
run_cdm available 12.0 --json
check "a version the mirror does not have: an empty list" test "$OUT" = "[]"

# ---- install ------------------------------------------------------------------------------
run_cdm install 9.27
expect_rc 1 "9.27 has two CUDA variants: cdm asks"
expect_err "cuda12 and cuda13.*--cuda" "naming both and the fix"
check "nothing was downloaded for that" test "$(requests "e['path'].startswith('cudnn/')")" = 0

run_cdm install 9.27 --cuda 13 --json
expect_rc 0 "cdm install 9.27 --cuda 13 downloads, verifies and installs"
check "as 9.27.0.48-cuda13" test "$(json 'd["id"]')" = 9.27.0.48-cuda13
check "downloaded, and not official (a mirror, not NVIDIA)" \
  test "$(json 'd["downloaded"], d["official"], d["changed"]')" = "(True, False, True)"
check "with the archive's hash" test "$(json 'd["sha256"]')" = "$(sha_of "$MIRROR/cudnn/linux-x86_64/$A927_13")"
check "its files are in the store" test -f "$CDM_ROOT/9.27.0.48-cuda13/include/cudnn_version.h"
check "the download is gone once installed" empty_dir "$DL"
check "the archive was fetched once" test "$(archive_gets "$A927_13")" = 1
run_cdm list --json
check "cdm list records the archive's real name" test "$(json 'd[0]["archive"]')" = "$A927_13"

run_cdm install 9.27 --cuda 13 --sha256 0000000000000000000000000000000000000000000000000000000000000000
expect_rc 1 "--sha256 that is not the manifest's"
expect_err "is not the hash of '$A927_13' in .*nothing was downloaded" "is refused before any download"
run_cdm install 9.27 --cuda 13 --json
check "again: nothing to do, nothing downloaded" \
  test "$(json 'd["changed"]'),$(archive_gets "$A927_13")" = "False,1"

run_cdm install 8.8.0 --cuda 11 --platform linux-sbsa
expect_rc 1 "a variant NVIDIA does not publish"
expect_err "NVIDIA publishes no cuDNN 8.8.0 for linux-sbsa cuda11 .*redistrib_8.8.0.json.*it has cuda12" \
  "is named, with the manifest and what it has instead"
run_cdm install 12.0
expect_rc 1 "a version nobody publishes"
expect_err "NVIDIA publishes no cuDNN 12.0" "says so"

run_cdm install 8.9
expect_rc 0 "8.9 through the listing and a per-build flat manifest"
run_cdm install 8 --cuda 11 --json
expect_rc 0 "8 --cuda 11: the newest 8.x manifest (8.9.7.29) has no cuda11, an older one has"
check "so 8.8.0.121-cuda11 is installed" test "$(json 'd["id"]')" = 8.8.0.121-cuda11
"$CDM" remove -q 8.8.0.121-cuda11
# (another store: install ids do not name the platform)
run_cdm --root "$SCRATCH/arm" install 9.27 --cuda 13 --platform windows-arm64 --json
expect_rc 0 "windows-arm64: the mixed flat+variant platform"
run_cdm --root "$SCRATCH/arm" list --json
check "the archive under the cuda13 key is preferred to the flat one" \
  test "$(json '[i["archive"] for i in d if i["platform"] == "windows-arm64"]')" = "['$A927_ARM']"

# ---- faults --------------------------------------------------------------------------------
# (the store's lock is taken while a download is unpacked as it arrives: who held it last is
# written down, the store itself left as it was)
store_digest() { tree_digest "$CDM_ROOT" | grep -v "downloads\|lock-holder"; }
tree_before=$(store_digest)
CDM_FETCH_BASE=$(base wrong) run_cdm install 9.27 --cuda 12
expect_rc 1 "a tampered archive is refused"
expect_err "does not match its manifest: sha256 .* expected, .* received.*deleted and nothing was installed" \
  "the error says the hash differs and the download was deleted"
check "the partial download is gone" test ! -e "$DL/$A927_12.partial"
check "the store is as it was" test "$(store_digest)" = "$tree_before"
run_cdm list --json
check "9.27.0.48-cuda12 is not installed" test "$(json '"9.27.0.48-cuda12" in [i["id"] for i in d]')" = False

size=$(stat -c %s "$MIRROR/cudnn/linux-x86_64/$A880_12")
CDM_FETCH_BASE=$(base cut) run_cdm install 8.8.0 --cuda 12
expect_rc 1 "a connection cut at half fails (no retries configured)"
expect_err "was cut.*bytes received are kept in '.*\\.partial': run the command again to resume" \
  "saying the bytes are kept and how to resume"
kept=$(stat -c %s "$DL/$A880_12.partial" 2>/dev/null || echo 0)
check "the partial holds the first half ($kept of $size bytes)" test "$kept" -eq $((size / 2))
check "the store is as it was" test "$(store_digest)" = "$tree_before"
run_cdm install 8.8.0 --cuda 12 --json
expect_rc 0 "run again: the download resumes and installs"
expect_err "resuming '$A880_12' at byte $kept" "saying where it resumes"
check "the server saw a range request from byte $kept, answered 206" \
  test "$(requests "e['range'] == 'bytes=$kept-' and e['status'] == 206")" = 1
check "and the install has the whole archive's hash" test "$(json 'd["sha256"]')" = "$(sha_of "$MIRROR/cudnn/linux-x86_64/$A880_12")"

# A body announced far longer than its manifest's size: refused at the headers, at once.
start=$(date +%s)
CDM_FETCH_BASE=$(base huge) run_cdm install 8.8.0 --cuda 11
expect_rc 1 "a download announced as 10^15 bytes is refused"
expect_err "is announced as 1000000000000000 bytes \(Content-Length\), longer than its manifest gives" \
  "at its headers, saying why"
check "without waiting for the body (under 5 s)" test $(($(date +%s) - start)) -lt 5
check "and with nothing kept of it" test ! -e "$DL/cudnn-linux-x86_64-8.8.0.121_cuda11-archive.tar.xz.partial"

fetch_config retries=2 retry_wait=0 timeout=5
CDM_FETCH_BASE=$(base cut-once) run_cdm install 8.8.0 --cuda 11 --json
expect_rc 0 "with retries, a cut connection is resumed within one run"
check "the second request asked for the rest" \
  test "$(requests "e['path'].endswith('$A880_11') and e['status'] == 206 and e['range']")" = 1
"$CDM" remove -q 8.8.0.121-cuda11

fetch_config retries=0
CDM_FETCH_BASE=$(base cut) run_cdm install 8.8.0 --cuda 11
check "a partial is left by a cut" test -s "$DL/$A880_11.partial"
CDM_FETCH_BASE=$(base norange) run_cdm install 8.8.0 --cuda 11 --json
expect_rc 0 "a server that ignores ranges: the download restarts cleanly"
expect_err "sends '$A880_11' whole, not from byte" "and says so"
check "it was asked for a range, and sent the whole file" \
  test "$(requests "e['mode'] == 'norange' and e['range'] is not None and e['status'] == 200")" = 1
check "the install is right" test "$(json 'd["sha256"]')" = "$(sha_of "$MIRROR/cudnn/linux-x86_64/$A880_11")"
"$CDM" remove -q 8.8.0.121-cuda11

CDM_FETCH_BASE=$(base redirect) run_cdm install 8.8.0 --cuda 11 --json
expect_rc 0 "a redirect is followed"
"$CDM" remove -q 8.8.0.121-cuda11

CDM_FETCH_BASE=$(base 404) run_cdm install 8.8.0 --cuda 11
expect_rc 1 "an archive the mirror lacks"
expect_err "$A880_11' is not there \\(HTTP 404\\)" "names the URL and the status"
CDM_FETCH_BASE=$(base 403) run_cdm install 8.8.0 --cuda 11
expect_err "refuses it \\(HTTP 403\\)" "403 says the server refuses it"
check "neither leaves a partial" test ! -e "$DL/$A880_11.partial"

fetch_config retries=1 retry_wait=0
CDM_FETCH_BASE=$(base 500) run_cdm install 8.8.0 --cuda 11
expect_rc 1 "HTTP 500 every time: fails after the retries"
expect_err "answered HTTP 500" "with the status"
check "one retry was made" test "$(requests "e['mode'] == '500'")" = 2
CDM_FETCH_BASE=$(base 500-once) run_cdm install 8.8.0 --cuda 11 --json
expect_rc 0 "HTTP 500 once: the retry succeeds"
expect_err "trying again in 0 s \\(1 of 1\\)" "saying it tries again"
"$CDM" remove -q 8.8.0.121-cuda11

fetch_config retries=0 timeout=1
CDM_FETCH_BASE=$(base stall) run_cdm install 8.8.0 --cuda 11
expect_rc 1 "a server that stops sending: a timeout"
expect_err "no answer from '127.0.0.1' in time \\(no data for 1 s\\).*kept in" "saying so, the bytes kept"
rm -f "$DL/$A880_11.partial"

fetch_config retries=0 timeout=5
CDM_FETCH_BASE=$(base slow) run_cdm install 8.8.0 --cuda 11 --json
expect_rc 0 "a slow trickle completes"
"$CDM" remove -q 8.8.0.121-cuda11

# Two processes, one archive: one download. The second starts once the first is
# downloading (its partial is there), so that they overlap whatever the machine's load.
# The server logs a request once its answer is sent (the stall above: 5 s later), which
# may be after the client is done: count this mode's requests, and let the log catch up.
slow_gets() { requests "e['mode'] == 'slow' and e['path'].endswith('$A880_11')"; }
gets=$(slow_gets)
CDM_FETCH_BASE=$(base slow) "$CDM" install 8.8.0 --cuda 11 --json >"$SCRATCH/p1" 2>"$SCRATCH/e1" &
p1=$!
for _ in $(seq 200); do
  [ -e "$DL/$A880_11.partial" ] && break
  sleep 0.05
done
CDM_FETCH_BASE=$(base slow) "$CDM" install 8.8.0 --cuda 11 --json >"$SCRATCH/p2" 2>"$SCRATCH/e2" &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
check "two concurrent installs of one archive both succeed" test "$r1,$r2" = "0,0"
for _ in $(seq 50); do
  [ "$(($(slow_gets) - gets))" -ge 1 ] && break
  sleep 0.1
done
sleep 0.3
check "the archive was downloaded once" test "$(($(slow_gets) - gets))" = 1
check "one installed it, the other found it installed" \
  test "$(cat "$SCRATCH/p1" "$SCRATCH/p2" | grep -c '"changed":false')" = 1
check "the second waited for the first, and said so" grep -q "waiting for another cdm process" "$SCRATCH/e2"

# ---- network failures --------------------------------------------------------------------
# (--force: 8.8.0 is installed, and an installed version is taken without the network)
CDM_FETCH_BASE=http://127.0.0.1:1/ run_cdm install 8.8.0 --cuda 11 --force
expect_rc 1 "nothing listening"
expect_err "cannot connect to '127.0.0.1'" "says it cannot connect"
if timeout 3 getent hosts cdm-test.invalid >/dev/null 2>&1 || [ $? -eq 124 ]; then
  skip "a name that does not resolve" "this machine's resolver answers .invalid or is slow"
else
  CDM_FETCH_BASE=http://cdm-test.invalid/ run_cdm install 8.8.0 --cuda 11 --force
  expect_err "the host name 'cdm-test.invalid' does not resolve" "a DNS failure names the host"
fi
CDM_FETCH_BASE=off run_cdm install 8.8.0 --cuda 11 --force
expect_err "downloads are off" "downloads can be turned off"
fetch_config retries=many
run_cdm available
expect_rc 1 "a malformed [fetch] value"
expect_err "line 2: \\[fetch\\] retries = 'many': give a whole number" "is named with its line"
fetch_config retries=0 timeout=5
CDM_FETCH_BASE=gopher://x/ run_cdm install 8.8.0 --cuda 11 --force
expect_err "cdm downloads from https://, http://, file:// URLs or a folder" "an unknown scheme is refused"

# A full disk: the store on a small tmpfs (root only).
small=$SCRATCH/small
mkdir -p "$small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=300k tmpfs "$small" 2>/dev/null; then
  CDM_ROOT=$small/store CDM_FETCH_BASE=$(base ok) run_cdm install 8.8.0 --cuda 11
  expect_rc 1 "a full disk fails the download"
  expect_err "No space left on device.*free some space" "naming the cause and the fix"
  check "and nothing is installed there" test ! -d "$small/store/8.8.0.121-cuda11"
  umount "$small"
else
  skip "a full disk" "needs root and a tmpfs mount"
fi

# ---- gc ------------------------------------------------------------------------------------
CDM_FETCH_BASE=$(base cut) run_cdm install 9.27 --cuda 12
check "a cut download leaves a partial" test -s "$DL/$A927_12.partial"
run_cdm gc --json
check "cdm gc removes a partial download nobody resumes" test ! -e "$DL/$A927_12.partial"
check "and names it" test "$(json 'd["partial_downloads"]')" = "['$DL/$A927_12.partial']"

# ---- fetch --into, then offline ------------------------------------------------------------
offline=$SCRATCH/offline
run_cdm fetch 8.8.0 --cuda 12 --into "$offline" --json
expect_rc 0 "cdm fetch --into downloads without installing"
check "the archive is in the folder" cmp "$offline/$A880_12" "$MIRROR/cudnn/linux-x86_64/$A880_12"
check "the manifest beside it, as the mirror has it" cmp "$offline/redistrib_8.8.0.json" "$MIRROR/redistrib_8.8.0.json"
check "and a SHA256SUMS line" grep -qx "$(sha_of "$offline/$A880_12")  $A880_12" "$offline/SHA256SUMS"
check "no partial left" test -z "$(ls "$offline" | grep partial)"
run_cdm fetch 8.8.0 --cuda 12 --into "$offline" --json
check "again: already there" test "$(json 'd["changed"]')" = False
run_cdm fetch 8.8.0 --cuda 12
expect_rc 2 "fetch without --into is a usage error"
expect_err "missing option '--into'" "which names the option"
expect_err "^usage: cdm fetch <VERSION> --into DIR \\[--cuda N\\]" "and the usage line shows it required"

export CDM_FETCH_BASE=off
printf '[install]\nsources = %s\n' "$offline" >"$CDM_CONFIG"
CDM_ROOT=$SCRATCH/store2 run_cdm install 8.8.0 --cuda 12 --json
expect_rc 0 "offline, the folder works as [install] sources"
: >"$CDM_CONFIG"
CDM_FETCH_BASE=file://$offline CDM_ROOT=$SCRATCH/store3 run_cdm available --json
check "as a file:// base it offers what it holds" test "$(json '[o["version"]+"/"+str(o["cuda"]) for o in d]')" = "['8.8.0.121/12']"
CDM_FETCH_BASE=file://$offline CDM_ROOT=$SCRATCH/store3 run_cdm install 8.8.0 --cuda 12 --json
expect_rc 0 "and installs from it offline"
check "in place: nothing was copied to the store's downloads" test ! -e "$SCRATCH/store3/downloads"
CDM_FETCH_BASE=$offline CDM_ROOT=$SCRATCH/store4 run_cdm install 8.8 --cuda 12 --json
expect_rc 0 "a plain folder works as a base too"
cp "$offline/$A880_12" "$SCRATCH/keep" && printf 'x' | dd of="$offline/$A880_12" bs=1 seek=1000 conv=notrunc 2>/dev/null
CDM_FETCH_BASE=$offline CDM_ROOT=$SCRATCH/store5 run_cdm install 8.8 --cuda 12
expect_rc 1 "a changed archive in a local base is refused"
expect_err "checksum mismatch for '.*$A880_12'" "against the recorded hash"

# ---- a trickle: data keeps coming, too slowly to ever end ------------------------------------
export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base trickle)
TR=$SCRATCH/store-trickle
# gives_up WHAT PATTERN KEY=VALUE...: with those [fetch] settings an install from the trickle
# fails soon, saying PATTERN; the bytes kept go to $kept
gives_up() {
  local what=$1 pattern=$2 start took
  shift 2
  fetch_config retries=0 timeout=5 "$@"
  start=$(date +%s)
  CDM_ROOT=$TR run_cdm install 8.8.0 --cuda 11
  took=$(($(date +%s) - start))
  expect_rc 1 "$what"
  check "soon, not when the trickle ends ($took s)" test "$took" -lt 30
  expect_err "$pattern" "saying so, and which setting"
  kept=$(stat -c %s "$TR/downloads/$A880_11.partial" 2>/dev/null || echo 0)
}
gives_up "a server trickling 10 bytes a second is given up (low_speed)" \
  "the transfer from '127\\.0\\.0\\.1' is too slow \\([0-9]+ bytes a second over the last 2 s, less than \\[fetch\\] low_speed 1000\\).*low_speed" \
  low_speed=1000 low_speed_time=2
check "what came is kept ($kept bytes)" test "$kept" -ge 65536
kept1=$kept
gives_up "and with no low-speed limit, the overall one ends it (max_time)" \
  "takes too long \\(still going after 3 s \\(\\[fetch\\] max_time\\)\\).*raise \\[fetch\\] max_time" \
  low_speed=0 max_time=3
check "it went on from what was kept, and keeps what came ($kept bytes)" test "$kept" -gt "$kept1"
fetch_config retries=0 timeout=5
CDM_FETCH_BASE=$(base ok)
CDM_ROOT=$TR run_cdm install 8.8.0 --cuda 11
expect_rc 0 "a later run from a good server finishes the download"
check "going on from what was kept" test "$(requests "e['path'].endswith('$A880_11') and e['mode'] == 'ok' and (e['range'] or '') == 'bytes=$kept-'")" -ge 1
fetch_config low_speed=fast
run_cdm available
expect_rc 1 "a low_speed that is no number is a configuration error"
expect_err "low_speed" "naming it"
: >"$CDM_CONFIG_FILE"

# ---- progress on a terminal ------------------------------------------------------------------
if command -v script >/dev/null; then
  export CDM_FETCH_BASE
  CDM_FETCH_BASE=$(base slow)
  script -qec "'$CDM' fetch 8.8.0 --cuda 11 --into '$SCRATCH/tty'" /dev/null >"$SCRATCH/tty.out" 2>&1
  check "on a terminal the download shows bytes, rate and time left" \
    grep -aq "KiB / .* KiB .*%.*/s .* left" "$SCRATCH/tty.out"
else
  skip_tool "progress on a terminal" "no 'script' program (util-linux)"
fi

done_testing
