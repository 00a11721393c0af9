# The GitHub Action (contrib/github-action): its script's three steps run as a runner would
# run them (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT files, RUNNER_* folders) against the
# loopback mirror: the cache key is the archive's SHA-256 from the manifest, the install
# lands in the store the cache keeps, the exported variables lead to it, a second run with
# the store restored downloads nothing, a CUDA_PATH the job has stays, a cdm downloaded with
# a wrong SHA-256 is refused. action.yml names those steps.
. "$TESTS_DIR/cli/lib.sh" || exit 1
. "$TESTS_DIR/cli/lib_mirror.sh" || exit 1
mirror_up
A=$TESTS_DIR/../contrib/github-action
export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base ok)
export RUNNER_OS=Linux RUNNER_TOOL_CACHE=$SCRATCH/toolcache RUNNER_TEMP=$SCRATCH/runnertemp
export GITHUB_ENV=$SCRATCH/github_env GITHUB_PATH=$SCRATCH/github_path GITHUB_OUTPUT=$SCRATCH/github_output
unset CUDA_PATH LD_LIBRARY_PATH CDM_ROOT # the action sets CDM_ROOT for its install step only
mkdir -p "$RUNNER_TOOL_CACHE" "$RUNNER_TEMP" "$SCRATCH/bin"
ln -s "$CDM" "$SCRATCH/bin/cdm"
export PATH="$SCRATCH/bin:$PATH"
step() { : >"$GITHUB_ENV"; : >"$GITHUB_PATH"; : >"$GITHUB_OUTPUT"; bash "$A/cdm-setup.sh" "$@" >"$SCRATCH/step.out" 2>&1; }
val() { sed -n "s/^$1=//p" "$2" | tail -1; }

check "action.yml runs the script's three steps, and caches the store by the archive's SHA-256" \
  sh -c 'grep -q "cdm-setup.sh\" tool" "$1" && grep -q "cdm-setup.sh\" resolve" "$1" && grep -q "cdm-setup.sh\" install" "$1" && grep -q "key: cdm-cudnn-\${{ runner.os }}-\${{ steps.resolve.outputs.sha256 }}" "$1"' _ "$A/action.yml"
if python3 -c 'import yaml' 2>/dev/null; then
  check "action.yml is YAML, a composite action" \
    test "$(python3 -c 'import yaml,sys; d=yaml.safe_load(open(sys.argv[1])); print(d["runs"]["using"], sorted(d["inputs"]))' "$A/action.yml")" = "composite ['base', 'cdm-sha256', 'cdm-url', 'cuda', 'version']"
else
  skip_tool "action.yml parsed as YAML" "python3's yaml module (python3-yaml, with ansible-core) is missing"
fi

CUDNN_VERSION=9.27 CUDNN_CUDA=12 step tool
check "tool: the cdm on PATH serves" test $? -eq 0
CUDNN_VERSION=9.27 CUDNN_CUDA=12 step resolve
check "resolve succeeds" test $? -eq 0
want=$(sha256sum "$MIRROR/cudnn/redist/cudnn/linux-x86_64/$A927_12" 2>/dev/null | cut -d' ' -f1)
[ -n "$want" ] || want=$(find "$MIRROR" -name "$A927_12" -exec sha256sum {} + | cut -d' ' -f1)
check "its sha256 output (the cache key) is the archive's" test "$(val sha256 "$GITHUB_OUTPUT")" = "$want"
store=$(val store "$GITHUB_OUTPUT")
check "its store output is in the runner's tool cache" test "$store" = "$RUNNER_TOOL_CACHE/cdm-store"

CDM_ROOT=$store CUDNN_VERSION=9.27 CUDNN_CUDA=12 step install
check "install succeeds" test $? -eq 0
path=$store/9.27.0.48-cuda12
check "CUDNN_PATH leads to the install" test "$(val CUDNN_PATH "$GITHUB_ENV")" = "$path"
check "CUDA_PATH too, as the job has none" test "$(val CUDA_PATH "$GITHUB_ENV")" = "$path"
check "LD_LIBRARY_PATH starts with its library folder" test "$(val LD_LIBRARY_PATH "$GITHUB_ENV")" = "$path/lib"
check "CDM_ACTIVE names it" test "$(val CDM_ACTIVE "$GITHUB_ENV")" = 9.27.0.48-cuda12
check "the install and path outputs" test "$(val install "$GITHUB_OUTPUT") $(val path "$GITHUB_OUTPUT")" = "9.27.0.48-cuda12 $path"
check "the library is there" test -e "$path/lib/libcudnn.so.9"

# a second run, the store restored by the cache: nothing downloaded
before=$(requests 'e["path"].endswith(".tar.xz")')
CUDA_PATH=/opt/cuda-12.4 LD_LIBRARY_PATH=/opt/x CDM_ROOT=$store CUDNN_VERSION=9.27 CUDNN_CUDA=12 step install
check "a second run with the store restored succeeds" test $? -eq 0
check "and downloads nothing" test "$(requests 'e["path"].endswith(".tar.xz")')" = "$before"
check "a CUDA_PATH the job has (a CUDA setup step's) stays" test -z "$(val CUDA_PATH "$GITHUB_ENV")"
check "the library folder goes before the job's LD_LIBRARY_PATH" test "$(val LD_LIBRARY_PATH "$GITHUB_ENV")" = "$path/lib:/opt/x"

# cdm downloaded from a release folder, its SHA-256 checked
mkdir -p "$MIRROR/release"
cp "$CDM" "$MIRROR/release/cdm-linux-x86_64"
good=$(sha256sum "$CDM" | cut -d' ' -f1)
CDM_URL=$(base ok)release CDM_SHA256=$good step tool
check "tool downloads cdm from cdm-url, its SHA-256 checked" \
  sh -c 'test $1 -eq 0 && test -x "$2/cdm/bin/cdm" && grep -qx "$2/cdm/bin" "$3"' _ $? "$RUNNER_TOOL_CACHE" "$GITHUB_PATH"
CDM_URL=$(base ok)release CDM_SHA256=0000000000000000000000000000000000000000000000000000000000000000 step tool
check "a cdm whose SHA-256 differs is refused" sh -c 'test $1 -ne 0 && grep -q "the downloaded cdm has SHA-256" "$2"' _ $? "$SCRATCH/step.out"
CUDNN_VERSION=7.0 step resolve
check "a version no manifest has fails, saying so" sh -c 'test $1 -ne 0 && grep -q "::error::cdm:" "$2"' _ $? "$SCRATCH/step.out"
[ "$FAILED" -eq 0 ] || diag "$(cat "$SCRATCH/step.out")"

done_testing
