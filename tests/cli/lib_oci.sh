# A registry for the OCI scenarios, sourced after lib.sh: Debian's docker-registry (the CNCF
# distribution registry) on a free loopback port, with token auth in front: the token
# server tests/mirror/oci_token.py grants user alice (password s3cret) what she asks for,
# signing the registry's JWTs with a certificate the registry trusts. The exit trap stops
# both. oci_up sets REG (127.0.0.1:PORT), TPORT, REGISTRY_LOG, TOKEN_LOG and REGISTRY_DATA.
OCI_PIDS=
# shellcheck disable=SC2154 # p is the trap's own loop variable
trap 'for p in $OCI_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm_tree "$SCRATCH"' EXIT

# asks_for_token: the registry answers /v2/ with 401 and a Bearer challenge naming the realm
asks_for_token() {
  python3 -c 'import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1])
except urllib.error.HTTPError as e:
    sys.exit(not (e.code == 401 and sys.argv[2] in e.headers.get("WWW-Authenticate", "")))
except Exception:
    pass
sys.exit(1)' "http://$REG/v2/" "Bearer realm=\"http://127.0.0.1:$TPORT/token\""
}

# oci_up: the token server, then the registry; the scenario ends here (skipped, failed
# under CI=true) without the packages
oci_up() {
  if ! command -v docker-registry >/dev/null || ! command -v skopeo >/dev/null ||
    ! python3 -c 'import cryptography' 2>/dev/null; then
    skip_tool "a loopback registry with token auth" \
      "docker-registry, skopeo or python3-cryptography is not installed (apt-get install docker-registry skopeo python3-cryptography)"
    done_testing
    exit
  fi
  mkdir -p "$SCRATCH/auth"
  TOKEN_LOG=$SCRATCH/token.log REGISTRY_LOG=$SCRATCH/registry.log REGISTRY_DATA=$SCRATCH/registry
  python3 "$TESTS_DIR/mirror/oci_token.py" "$SCRATCH/auth" alice s3cret "$SCRATCH/token.port" "$TOKEN_LOG" &
  OCI_PIDS=$!
  for _ in $(seq 100); do [ -s "$SCRATCH/token.port" ] && break; sleep 0.1; done
  TPORT=$(cat "$SCRATCH/token.port")
  REG=127.0.0.1:$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat >"$SCRATCH/registry.yml" <<YML
version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: $REGISTRY_DATA
http:
  addr: $REG
  secret: cdm-test
auth:
  token:
    realm: http://127.0.0.1:$TPORT/token
    service: cdm-test-registry
    issuer: cdm-test-issuer
    rootcertbundle: $SCRATCH/auth/cert.pem
YML
  docker-registry serve "$SCRATCH/registry.yml" >"$REGISTRY_LOG" 2>&1 &
  OCI_PIDS="$OCI_PIDS $!"
  for _ in $(seq 100); do asks_for_token && break; sleep 0.1; done
  check "the registry is up, and asks for a token of the token server" asks_for_token
}

# oci_cdn_up: a front for the registry that sends blob downloads to a storage host which
# refuses the registry's token (tests/mirror/oci_cdn.py); sets CDN (127.0.0.1:PORT) and
# CDN_LOG
oci_cdn_up() {
  CDN_LOG=$SCRATCH/cdn.log
  python3 "$TESTS_DIR/mirror/oci_cdn.py" "$REG" "$REGISTRY_DATA" "$SCRATCH/cdn.port" "$CDN_LOG" &
  OCI_PIDS="$OCI_PIDS $!"
  for _ in $(seq 100); do [ -s "$SCRATCH/cdn.port" ] && break; sleep 0.1; done
  # shellcheck disable=SC2034 # CDN is the scenarios'
  CDN=127.0.0.1:$(cat "$SCRATCH/cdn.port")
}
