# OCI registries: Debian's docker-registry (the CNCF distribution registry) on loopback,
# with token auth in front (tests/mirror/oci_token.py, which signs the registry's JWTs).
# cdm push stores an install's archive as cdm's artifact; cdm install oci://... installs
# it on a fresh store, its layer held to a project's cudnn.lock before any byte is fetched;
# [fetch] sources = oci://... finds a version by its tags; a tampered blob is refused;
# skopeo reads the artifact and copies it, and cdm installs the copy; NVIDIA's real wheel
# makes the round trip and verifies.
. "$TESTS_DIR/cli/lib.sh" || exit 1
. "$TESTS_DIR/cli/lib_oci.sh" || exit 1
. "$TESTS_DIR/cli/lib_real_cudnn.sh" || exit 1
oci_up

A12=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz --pad 65536)
A13=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda13-archive.tar.xz --pad 65536)
SHA12=$(sha256sum <"$A12" | cut -d' ' -f1)
printf '[install]\nsources = %s\n' "$SCRATCH/archives" >"$CDM_CONFIG"
run_cdm install 9.1.0 --cuda 12
run_cdm install 9.1.0 --cuda 13
expect_rc 0 "two installs from archives in the sources"

# push: refused without credentials, and with wrong ones; then done
run_cdm push 9.1.0 --cuda 12 "oci://$REG/team/cudnn"
expect_rc 1 "a push without credentials is refused"
expect_err "refuses anonymous access \(HTTP 401\); set CDM_REGISTRY_USERNAME" "saying where credentials come from"
CDM_REGISTRY_USERNAME=alice CDM_REGISTRY_PASSWORD=wrong run_cdm push 9.1.0 --cuda 12 "oci://$REG/team/cudnn"
expect_rc 1 "a push with a wrong password is refused"
check "and nothing is in the registry" test ! -e "$REGISTRY_DATA/docker/registry/v2/repositories/team/cudnn/_manifests"
mkdir -p "$HOME/.docker"
printf '{"auths": {"%s": {"auth": "%s"}}}\n' "$REG" "$(printf alice:s3cret | base64)" >"$HOME/.docker/config.json"
run_cdm push 9.1.0 --cuda 12 "oci://$REG/team/cudnn" --json
expect_rc 0 "cdm push with the credentials of docker login's config.json"
TAG12=9.1.0.70-cuda12-linux-x86_64
check "the tag is VERSION-cudaN-PLATFORM and the layer is the archive's sha256" \
  test "$(json 'd["reference"], d["layer"], d["layer_sent"]')" = "('oci://$REG/team/cudnn:$TAG12', 'sha256:$SHA12', True)"
DIGEST12=$(json 'd["digest"]')
check "the token asked for was push and pull on the repository" grep -q "^repository:team/cudnn:pull,push granted" "$TOKEN_LOG"
run_cdm push 9.1.0 --cuda 13 "oci://$REG/team/cudnn"
expect_rc 0 "the CUDA 13 build too"
CDM_REGISTRY_USERNAME=alice CDM_REGISTRY_PASSWORD=s3cret run_cdm push 9.1.0 --cuda 12 "oci://$REG/team/cudnn:again" --json
check "a second push (credentials from the environment) sends no archive the registry has" \
  test "$(json 'd["layer_sent"]')" = False

# skopeo, a plain OCI client, reads the artifact and copies it
SK=skopeo
check "skopeo inspect reads cdm's artifact: its install and its one layer" \
  sh -c '$1 inspect --tls-verify=false --creds alice:s3cret "docker://$2" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(not (d[\"Labels\"][\"dev.cdm.install\"] == \"9.1.0.70-cuda12\" and d[\"Layers\"] == [\"sha256:$3\"] and d[\"Digest\"] == \"$4\"))"' \
  _ "$SK" "$REG/team/cudnn:$TAG12" "$SHA12" "$DIGEST12"
check "skopeo copies it to another repository" $SK copy -q --src-tls-verify=false --dest-tls-verify=false \
  --src-creds alice:s3cret --dest-creds alice:s3cret "docker://$REG/team/cudnn:$TAG12" "docker://$REG/mirror/cudnn:$TAG12"

# a fresh store installs from the registry, and from skopeo's copy
export CDM_ROOT=$SCRATCH/fresh
: >"$CDM_CONFIG"
run_cdm install "oci://$REG/team/cudnn:$TAG12" --json
expect_rc 0 "cdm install oci://REGISTRY/REPO:TAG on a fresh store"
check "installs that archive" test "$(json 'd["id"], d["sha256"]')" = "('9.1.0.70-cuda12', '$SHA12')"
run_cdm verify
expect_rc 0 "and it verifies"
check "no download is left behind" test -z "$(ls -A "$CDM_ROOT/downloads" 2>/dev/null)"
# blobs served from a storage host the registry redirects to, which refuses the token
oci_cdn_up
export CDM_ROOT=$SCRATCH/cdn
CDM_REGISTRY_USERNAME=alice CDM_REGISTRY_PASSWORD=s3cret run_cdm install "oci://$CDN/team/cudnn:$TAG12" --json
expect_rc 0 "a pull whose blob the registry redirects to a storage host"
check "installs the archive" test "$(json 'd["sha256"]')" = "$SHA12"
check "the storage host served it, and got no token" \
  sh -c 'grep -q "redirected" "$1" && grep -q "served" "$1" && ! grep -q "refused" "$1"' _ "$CDN_LOG"

# a download cut before: the blob's first bytes kept in downloads/, the rest asked for
export CDM_ROOT=$SCRATCH/resumed
mkdir -p "$CDM_ROOT/downloads"
head -c 300000 "$A12" >"$CDM_ROOT/downloads/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz.partial"
run_cdm install "oci://$REG/team/cudnn:$TAG12" --json
expect_rc 0 "a pull with 300,000 bytes of the blob kept from before"
check "installs the archive" test "$(json 'd["sha256"]')" = "$SHA12"
check "asking the registry for the rest only (206)" \
  grep -q "GET /v2/team/cudnn/blobs/sha256:$SHA12 HTTP/1.1\" 206" "$REGISTRY_LOG"

export CDM_ROOT=$SCRATCH/fresh2
run_cdm install "oci://$REG/mirror/cudnn@$DIGEST12"
expect_rc 0 "skopeo's copy installs, named by the manifest's digest"
run_cdm install "oci://$REG/mirror/cudnn@sha256:$(printf '%064d' 0)"
expect_rc 1 "a digest the registry does not have is not found"
expect_err "has no such digest \(HTTP 404\)" "saying so"

# [fetch] sources: a version found by the repository's tags
export CDM_ROOT=$SCRATCH/bytag
printf '[fetch]\nsources = oci://%s/team/cudnn\n' "$REG" >"$CDM_CONFIG"
run_cdm install 9.1 --cuda 13 --json
expect_rc 0 "[fetch] sources = oci://...: cdm install 9.1 --cuda 13"
check "is the CUDA 13 build's archive" test "$(json 'd["id"], d["sha256"]')" = "('9.1.0.70-cuda13', '$(sha256sum <"$A13" | cut -d' ' -f1)')"
run_cdm install 9.2
expect_rc 1 "a version no tag has is not found"
expect_err "has no 9.2 for linux-x86_64 in 'team/cudnn'" "naming the registry's repository"

# a project's cudnn.lock: the layer must be the locked archive, checked before the download
export CDM_ROOT=$SCRATCH/store
: >"$CDM_CONFIG"
mkdir -p "$SCRATCH/proj"
run_cdm link "$SCRATCH/proj" 9.1.0 --cuda 12
run_cdm lock "$SCRATCH/proj"
expect_rc 0 "a project locked to the CUDA 12 build"
export CDM_ROOT=$SCRATCH/locked
BLOBS_BEFORE=$(grep -c "GET /v2/team/cudnn/blobs/sha256:$(sha256sum <"$A13" | cut -d' ' -f1)" "$REGISTRY_LOG")
(cd "$SCRATCH/proj" && run_cdm install "oci://$REG/team/cudnn:9.1.0.70-cuda13-linux-x86_64" &&
  printf '%s\n%s\n' "$RC" "$ERR" >"$SCRATCH/locked.out")
check "in the project, an artifact that is not the locked archive is refused" test "$(head -1 "$SCRATCH/locked.out")" = 1
check "naming both hashes" grep -q "holds 'cudnn-linux-x86_64-9.1.0.70_cuda13-archive.tar.xz' of sha256 .*the lock (or --sha256) names $SHA12" "$SCRATCH/locked.out"
check "before a byte of the archive was fetched" test "$(grep -c "GET /v2/team/cudnn/blobs/sha256:$(sha256sum <"$A13" | cut -d' ' -f1)" "$REGISTRY_LOG")" = "$BLOBS_BEFORE"
(cd "$SCRATCH/proj" && run_cdm install "oci://$REG/team/cudnn:$TAG12" && printf '%s\n' "$RC" >"$SCRATCH/locked.out")
check "the locked one installs" test "$(cat "$SCRATCH/locked.out")" = 0

# a blob changed in the registry's storage: its bytes no longer have its digest
export CDM_ROOT=$SCRATCH/tampered
BLOB=$REGISTRY_DATA/docker/registry/v2/blobs/sha256/$(printf %.2s "$SHA12")/$SHA12/data
chmod u+w "$BLOB"
printf 'x' | dd of="$BLOB" bs=1 seek=4000 conv=notrunc 2>/dev/null
run_cdm install "oci://$REG/team/cudnn:$TAG12"
expect_rc 1 "a tampered blob is refused"
expect_err "sha256" "as a hash mismatch"
check "nothing is installed, no download is kept" \
  sh -c '! ls "$1" 2>/dev/null | grep -q cuda && test -z "$(ls -A "$1/downloads" 2>/dev/null)"' _ "$CDM_ROOT"

# NVIDIA's real wheel (665 MB) through the registry: pushed as its own bytes, installed on a
# fresh store, verified
real=$(real_wheel manylinux2014_x86_64 2>"$SCRATCH/real.err")
if [ -z "$real" ]; then
  skip_tool "NVIDIA's real wheel through the registry" "$(tail -1 "$SCRATCH/real.err")"
else
  CDM_ROOT=$SCRATCH/real run_cdm install "$real"
  CDM_REGISTRY_USERNAME=alice CDM_REGISTRY_PASSWORD=s3cret CDM_ROOT=$SCRATCH/real \
    run_cdm push 9.1.0.70-cuda12 "oci://$REG/nvidia/cudnn" --archive "$real" --json
  expect_rc 0 "cdm push of NVIDIA's real wheel's install (--archive WHEEL)"
  check "its layer is the wheel's sha256" test "$(json 'd["layer"]')" = "sha256:$(sha256sum <"$real" | cut -d' ' -f1)"
  CDM_REGISTRY_USERNAME=alice CDM_REGISTRY_PASSWORD=s3cret CDM_ROOT=$SCRATCH/real2 \
    run_cdm install "oci://$REG/nvidia/cudnn:9.1.0.70-cuda12-linux-x86_64" --json
  expect_rc 0 "installed from the registry on a fresh store"
  check "as the wheel it is" test "$(json 'd["id"], d["source"], d["from"]')" = "('9.1.0.70-cuda12', 'wheel', '$(basename "$real")')"
  CDM_ROOT=$SCRATCH/real2 run_cdm verify
  expect_rc 0 "and it verifies"
  rm_store "$SCRATCH/real" "$SCRATCH/real2"
fi

# references cdm refuses to guess at
export CDM_ROOT=$SCRATCH/store
run_cdm install "oci://$REG/Team/CUDNN:x"
expect_rc 2 "a repository in capitals is no reference"
expect_err "is not a registry reference" "saying so"
run_cdm push 9.1.0 --cuda 12 "oci://$REG/team/cudnn@$DIGEST12"
expect_rc 2 "a push to a digest is refused"
run_cdm install "oci://registry.invalid/team/cudnn:1"
expect_err "https://registry.invalid/v2/team/cudnn" "a registry off loopback is spoken to over https"
printf '[fetch]\ninsecure_registries = registry.invalid:5000\n' >"$CDM_CONFIG"
run_cdm install "oci://registry.invalid:5000/team/cudnn:1"
expect_err "'http://registry.invalid:5000/v2/team/cudnn" "unless [fetch] insecure_registries names it"
printf '[fetch]\ninsecure_registries = http://registry.invalid\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "an insecure registry written as a URL is a configuration error"
expect_err "give registries as HOST or HOST:PORT" "saying how to write it"
done_testing
