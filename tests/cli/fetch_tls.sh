# Downloads over TLS: the loopback mirror served by nginx with a certificate from a test CA
# made here ([fetch] ca_file), resume against nginx's range support, a tampered archive,
# a redirect from https to http, and NVIDIA's own base reached through https_proxy (the
# test server tunnels every CONNECT to this nginx, so nothing leaves the machine).
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_mirror.sh"

tls_up "location /compute/cudnn/redist/ { alias $MIRROR/; autoindex on; }" \
  "location /compute/redist/cudnn/ { alias $MIRROR/; }" \
  "location /downgrade/ { return 302 http://127.0.0.1:@PORT@/ok/; }"
export CDM_FETCH_BASE=https://127.0.0.1:$NPORT/
DL=$CDM_ROOT/downloads

fetch_config retries=0 timeout=10
run_cdm available
expect_rc 1 "without [fetch] ca_file the test CA is not trusted"
expect_err "the TLS connection to '127.0.0.1' failed .*set \\[fetch\\] ca_file" \
  "the error says TLS failed and names ca_file"

fetch_config retries=0 timeout=10 "ca_file=$TLS/other-ca.pem"
run_cdm available
expect_rc 1 "a ca_file of another CA does not make the server trusted"

fetch_config retries=0 timeout=10 "ca_file=$TLS/ca.pem"
run_cdm available --json
expect_rc 0 "with ca_file, cdm available reads nginx's index page and the manifests"
check "the five archives of this platform" test "$(json 'len(d)')" = 5

run_cdm install 9.27 --cuda 13 --json
expect_rc 0 "cdm install 9.27 --cuda 13 over https"
check "installed, downloaded, not official (a mirror)" \
  test "$(json 'd["id"], d["downloaded"], d["official"]')" = "('9.27.0.48-cuda13', True, False)"

# resume: half of the archive is there from an earlier run
src=$MIRROR/cudnn/linux-x86_64/$A880_12
half=$(($(stat -c %s "$src") / 2))
mkdir -p "$DL"
head -c "$half" "$src" >"$DL/$A880_12.partial"
run_cdm install 8.8.0 --cuda 12 --json
expect_rc 0 "a partial download resumes over https"
check "nginx logged the range request from byte $half, answered 206" \
  grep -q "$A880_12 \"bytes=$half-\" 206" "$ACCESS"
check "the install is whole" test "$(json 'd["sha256"]')" = "$(sha256sum "$src" | cut -d' ' -f1)"

# a partial that is not a prefix of the archive: its hash fails, the download starts again
head -c "$half" /dev/urandom >"$DL/$A880_11.partial"
run_cdm install 8.8.0 --cuda 11 --json
expect_rc 0 "a partial with wrong bytes: downloaded again from the start"
expect_err "resumed does not match its manifest; downloading it again" "saying so"

# tampered: the mirror's archive changed after its manifest was written
"$CDM" remove -q 8.8.0.121-cuda11
python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[len(b)//2]^=1; open(p,"wb").write(b)' \
  "$MIRROR/cudnn/linux-x86_64/$A880_11"
run_cdm install 8.8.0 --cuda 11
expect_rc 1 "a tampered archive on the https mirror is refused"
expect_err "does not match its manifest.*deleted" "the download was deleted"
check "nothing installed, no partial" test ! -e "$CDM_ROOT/8.8.0.121-cuda11" -a ! -e "$DL/$A880_11.partial"

CDM_FETCH_BASE=https://127.0.0.1:$NPORT/downgrade/ run_cdm install 8.8.0 --cuda 12 --force
expect_rc 1 "a redirect from https to http is refused"
expect_err "a redirect from https to http, which cdm refuses" "and named"

# NVIDIA's own base through a proxy: the hash of its manifest marks the install official
MIRROR_TUNNEL_TO=127.0.0.1:$NPORT start_server || not_ok "the proxy starts"
export https_proxy=http://127.0.0.1:$PORT
CDM_FETCH_BASE='' run_cdm --root "$SCRATCH/nv" install 9.27 --cuda 12 --json
unset https_proxy
expect_rc 0 "the default base, reached through https_proxy"
check "the proxy was asked for developer.download.nvidia.com" \
  test "$(requests "e['mode'] == 'CONNECT' and e['path'].startswith('developer.download.nvidia.com:443')")" -ge 1
check "the install from NVIDIA's manifest is marked official" test "$(json 'd["official"]')" = True

# An archive from before the manifests comes from NVIDIA's old folder (a stand-in there:
# refused against NVIDIA's hash, after the download from the right place)
L811=cudnn-11.2-linux-x64-v8.1.1.33.tgz
mkdir -p "$MIRROR/v8.1.1" && "$MAKE_FIXTURE" "$MIRROR/v8.1.1/$L811"
export https_proxy=http://127.0.0.1:$PORT
CDM_FETCH_BASE='' run_cdm --root "$SCRATCH/nv" install 8.1.1 --cuda 11
unset https_proxy
expect_rc 1 "cuDNN 8.1.1 from NVIDIA's base: a stand-in is refused"
check "it was fetched from NVIDIA's folder of the archives older than the manifests" \
  grep -q "^/compute/redist/cudnn/v8.1.1/$L811 \"-\" 200" "$ACCESS"
expect_err "https://developer.download.nvidia.com/compute/redist/cudnn/v8.1.1/$L811' does not match cdm's table" \
  "checked against the table's hash"

done_testing
