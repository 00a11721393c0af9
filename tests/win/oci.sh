# OCI registries from cdm.exe (WinHTTP) under Wine: a Windows archive's install pushed to the
# loopback registry with token auth (tests/cli/lib_oci.sh), read by skopeo as a Windows
# artifact, and installed from the registry into a fresh store, which verifies.
. "$TESTS_DIR/win/lib.sh"
. "$TESTS_DIR/cli/lib_oci.sh"
oci_up

ZIP=$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip --pad 65536)
SHA=$(sha256sum <"$ZIP" | cut -d' ' -f1)
printf '[install]\nsources = %s\n' "$(wpath "$SCRATCH/archives")" >"$SCRATCH/config.ini"
run_cdm install 9.1.0
expect_rc 0 "cdm.exe installs the Windows archive from the sources"
export CDM_REGISTRY_USERNAME=alice CDM_REGISTRY_PASSWORD=s3cret
run_cdm push 9.1.0 "oci://$REG/win/cudnn" --json
expect_rc 0 "cdm.exe push: WinHTTP's POST and PUT, the token asked for and sent"
TAG=9.1.0.70-cuda12-windows-x86_64
check "the artifact's tag and layer" \
  test "$(json 'd["reference"], d["layer"], d["layer_sent"]')" = "('oci://$REG/win/cudnn:$TAG', 'sha256:$SHA', True)"
check "skopeo reads it as a Windows artifact of that install" \
  sh -c 'skopeo inspect --tls-verify=false --creds alice:s3cret "docker://$1" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(not (d[\"Os\"] == \"windows\" and d[\"Labels\"][\"dev.cdm.install\"] == \"9.1.0.70-cuda12\"))"' \
  _ "$REG/win/cudnn:$TAG"

CDM_ROOT=$(wpath "$SCRATCH/fresh")
export CDM_ROOT
: >"$SCRATCH/config.ini"
run_cdm install "oci://$REG/win/cudnn:$TAG" --json
expect_rc 0 "cdm.exe install oci://... into a fresh store"
check "installs that archive" test "$(json 'd["id"], d["sha256"]')" = "('9.1.0.70-cuda12', '$SHA')"
run_cdm verify
expect_rc 0 "and it verifies"
# blobs served from a storage host the registry redirects to, which refuses the token
oci_cdn_up
CDM_ROOT=$(wpath "$SCRATCH/cdn")
run_cdm install "oci://$CDN/win/cudnn:$TAG" --json
expect_rc 0 "cdm.exe pulls a blob the registry redirects to a storage host"
check "installs the archive" test "$(json 'd["sha256"]')" = "$SHA"
check "the storage host served it, and got no token" \
  sh -c 'grep -q "redirected" "$1" && grep -q "served" "$1" && ! grep -q "refused" "$1"' _ "$CDN_LOG"
unset CDM_REGISTRY_PASSWORD
CDM_ROOT=$(wpath "$SCRATCH/fresh2")
run_cdm install "oci://$REG/win/cudnn:$TAG"
expect_rc 1 "without a password, the token service refuses"
expect_err "refuses anonymous access \(HTTP 401\)" "and cdm.exe says so"
done_testing
