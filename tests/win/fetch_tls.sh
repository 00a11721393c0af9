# cdm.exe over TLS under Wine: WinHTTP against nginx on loopback with a certificate from a
# test CA. The CA is in no certificate store Wine knows, so [fetch] ca_file is what makes it
# trusted: cdm checks the server's chain itself with CryptoAPI (see http_win32.c).
. "$TESTS_DIR/win/lib.sh"
# shellcheck disable=SC2034 # read by lib_mirror.sh
CDM_CONFIG_POSIX=$SCRATCH/config.ini
. "$TESTS_DIR/cli/lib_mirror.sh"

tls_up
export CDM_FETCH_BASE=https://localhost:$NPORT/

fetch_config retries=0 timeout=10
run_cdm available
expect_rc 1 "without [fetch] ca_file the test CA is not trusted"
expect_err "the TLS connection to 'localhost' failed" "the error says TLS failed"

fetch_config retries=0 timeout=10 "ca_file=$(wpath "$TLS/other-ca.pem")"
run_cdm available
expect_rc 1 "a ca_file of another CA does not make the server trusted"
expect_err "trusted neither by Windows nor by a certificate of \\[fetch\\] ca_file" \
  "cdm's own chain check refuses it"

fetch_config retries=0 timeout=10 "ca_file=$(wpath "$TLS/ca.pem")"
run_cdm available --json
expect_rc 0 "with the test CA as ca_file, cdm available reads the mirror over https"
check "the windows-x86_64 archives" test "$(json 'len(d)')" = 2
run_cdm install 9.27 --cuda 13 --json
expect_rc 0 "and cdm install 9.27 --cuda 13 downloads and installs over https"
check "with the archive's hash" \
  test "$(json 'd["sha256"]')" = "$(sha256sum "$MIRROR/cudnn/windows-x86_64/$A927_WIN" | cut -d' ' -f1)"

done_testing
