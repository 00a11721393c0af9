# cdm install VERSION --from pypi: NVIDIA's wheels from a Python package index of the simple
# API (PEP 691 JSON and PEP 503 HTML) on loopback, served by the fault server: the newest
# match chosen by tag, the index's sha256 checked (a changed byte refused), a cut download
# resumed, the config's index_url and source order, PIP_INDEX_URL, cdm available --from
# pypi; then NVIDIA's real wheel
# through the same server.
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_mirror.sh"
. "$TESTS_DIR/cli/lib_real_cudnn.sh"

if ! command -v python3 >/dev/null; then
  skip_tool "downloads from a package index" "python3 is not installed (the index's server is Python)"
  done_testing
  exit 0
fi
mkdir -p "$SCRATCH/wheels" "$MIRROR"
mw() { python3 "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" "$@"; }
w91=$(mw nvidia-cudnn-cu12 9.1.0.70)
w90=$(mw nvidia-cudnn-cu12 9.0.0.312)
w914_12=$(mw nvidia-cudnn-cu12 9.14.0.64)
w914_13=$(mw nvidia-cudnn-cu13 9.14.0.64)
w91win=$(mw nvidia-cudnn-cu12 9.1.0.70 --windows)
w927=$(mw nvidia-cudnn-cu13 9.27.0.48)
mi="python3 $TESTS_DIR/mirror/make_index.py $MIRROR"
build_mirror || { not_ok "the NVIDIA mirror is built"; done_testing; exit 1; }
# shellcheck disable=SC2015 # the fallback is meant to run when either step fails
$mi simple "$w91" "$w90" "$w914_12" "$w914_13" "$w91win" "$w927" &&
  $mi simple-html --html-only "$w91" "$w91win" &&
  $mi simple-nohash --no-hashes "$w91" ||
  { not_ok "the test index is built"; done_testing; exit 1; }
start_server || { not_ok "the index server starts"; done_testing; exit 1; }
index() { printf 'http://127.0.0.1:%s/%s/%s/\n' "$PORT" "$1" "$2"; }
config() { printf '[fetch]\n%s\n' "$@" >"$CDM_CONFIG"; }
wheel_gets() { requests "e['path'].endswith('$(basename "$1")')"; }

config "index_url = $(index ok simple)"
run_cdm install 9.1 --from pypi --json
expect_rc 0 "cdm install 9.1 --from pypi installs NVIDIA's wheel from the index"
check "the newest 9.1 for this platform and CUDA 12: 9.1.0.70, from the wheel" \
  test "$(json 'd["id"], d["source"], d["downloaded"]')" = "('9.1.0.70-cuda12', 'wheel', True)"
check "the index's page was read as JSON (PEP 691)" \
  test "$(requests "e['path'] == 'simple/nvidia-cudnn-cu12/index.json'")" -ge 1
check "the Linux wheel was downloaded, not the Windows one" \
  test "$(wheel_gets "$w91")" = 1 -a "$(wheel_gets "$w91win")" = 0
check "the download is gone once installed" empty_dir "$CDM_ROOT/downloads"
run_cdm verify
expect_rc 0 "and it verifies"

# A lock of a wheel's install: a fresh store gets the same wheel back from the index.
mkdir -p "$SCRATCH/proj"
run_cdm link "$SCRATCH/proj" 9.1
run_cdm lock "$SCRATCH/proj"
expect_rc 0 "cdm lock of a project linked to the wheel's install"
check "the lock names the wheel" grep -q "^archive = $(basename "$w91")$" "$SCRATCH/proj/cudnn.lock"
run_cdm unlink "$SCRATCH/proj"
run_cdm remove 9.1
gets=$(wheel_gets "$w91")
run_cdm link "$SCRATCH/proj"
expect_rc 0 "cdm link from the pin and the lock installs the locked wheel again"
check "downloaded from the index (downloads from NVIDIA are off here)" test "$(wheel_gets "$w91")" = $((gets + 1))
run_cdm list --json
check "the same wheel, by its hash" \
  test "$(json '[i["sha256"] for i in d if i["id"] == "9.1.0.70-cuda12"][0]')" = "$(sha256sum "$w91" | cut -d' ' -f1)"
run_cdm unlink "$SCRATCH/proj"

run_cdm install 9.14 --from pypi
expect_rc 1 "9.14 exists for CUDA 12 and 13: refused"
expect_err "matches several wheels .*; choose one with --cuda N" "asking for --cuda"
run_cdm install 9.14 --from pypi --cuda 13 --json
expect_rc 0 "--cuda 13 chooses the -cu13 wheel"
check "installed as 9.14.0.64-cuda13" test "$(json 'd["id"]')" = 9.14.0.64-cuda13

run_cdm available --from pypi --json
expect_rc 0 "cdm available --from pypi lists what the index offers"
check "this platform's wheels, oldest first, with their CUDA majors and the index's hashes" \
  test "$(json '[(o["version"], o["cuda"], len(o["sha256"])) for o in d]')" = "[('9.0.0.312', 12, 64), ('9.1.0.70', 12, 64), ('9.14.0.64', 12, 64), ('9.14.0.64', 13, 64), ('9.27.0.48', 13, 64)]"
run_cdm available 9.1 --from pypi --platform all --json
check "--platform all adds the win_amd64 wheel" \
  test "$(json '[(o["platform"], o["archive"].endswith(".whl")) for o in d]')" = "[('linux-x86_64', True), ('windows-x86_64', True)]"

run_cdm install 9.2 --from pypi
expect_rc 1 "a version the index does not have"
expect_err "has no linux-x86_64 wheel of cuDNN 9.2" "is named as missing"

# The index's hash is checked: a changed byte is refused, and nothing is installed.
run_cdm remove 9.1
config "index_url = $(index wrong simple)"
run_cdm install 9.1 --from pypi
expect_rc 1 "a wheel whose bytes differ from the index's sha256 is refused"
expect_err "sha256" "naming the hash"
check "nothing is installed" test ! -e "$CDM_ROOT/9.1.0.70-cuda12"
check "and the bad download is not kept" test -z "$(ls -A "$CDM_ROOT/downloads" 2>/dev/null)"

# A cut download is resumed with a range request, from the size the JSON page gives.
config "index_url = $(index cut-once simple)" "retry_wait = 0"
run_cdm install 9.1 --from pypi
expect_rc 0 "a download cut halfway is resumed and installs"
check "the second request asked for the rest" \
  test "$(requests "e['path'].endswith('$(basename "$w91")') and e['status'] == 206 and e['range']")" = 1

# HTML only (PEP 503), hashes in the links' fragments.
run_cdm remove 9.1
config "index_url = $(index ok simple-html)"
run_cdm install 9.1.0.70 --from pypi --cuda 12
expect_rc 0 "an index that speaks only HTML works too"
check "its page was the HTML one" test "$(requests "e['path'] == 'simple-html/nvidia-cudnn-cu12/index.html'")" -ge 1

run_cdm remove 9.1
config "index_url = $(index ok simple-nohash)"
gets=$(requests "e['path'].startswith('packages/')")
run_cdm install 9.1 --from pypi
expect_rc 1 "a page without hashes is refused"
expect_err "gives no sha256 for '$(basename "$w91")'; cdm downloads only what it can check" "saying why"
check "before anything is downloaded" test "$(requests "e['path'].startswith('packages/')")" = "$gets"

# PIP_INDEX_URL, as pip reads it, when the config names no index.
: >"$CDM_CONFIG"
PIP_INDEX_URL=$(index ok simple) run_cdm install 9.0 --from pypi --json
expect_rc 0 "PIP_INDEX_URL is the index when the config says nothing"
check "9.0.0.312 came from it" test "$(json 'd["id"]')" = 9.0.0.312-cuda12

# [fetch] sources: the order of the sources a version is downloaded from.
run_cdm remove 9.0
config "index_url = $(index ok simple)" "sources = pypi"
run_cdm install 9.0 --json
expect_rc 0 "sources = pypi: a version is taken from the index without --from"
config "index_url = $(index ok simple)" "sources = nvidia, pypi" "base = $(base ok)"
run_cdm remove 9.0
run_cdm install 9.0 --json
expect_rc 0 "sources = nvidia, pypi: what NVIDIA's base lacks comes from the index"
expect_err "trying the package index" "saying it goes on to the index"
# A lock names the file by its sha256: where NVIDIA's base has the version but another file
# (its archive), the index's wheel of that hash is the one taken.
CDM_FETCH_BASE=$(base ok) run_cdm install 9.27 --cuda 13 --sha256 "$(sha256sum "$w927" | cut -d' ' -f1)" --json
expect_rc 0 "--sha256 of the wheel: NVIDIA's base has 9.27.0.48 as an archive, the index has the wheel"
check "the wheel was installed" test "$(json 'd["source"], d["id"]')" = "('wheel', '9.27.0.48-cuda13')"
expect_err "is not the hash of .*; trying the package index" "saying why it went on to the index"
run_cdm remove 9.27
config "index_url = $(index ok simple)" "sources = nvidia, pypi" "base = $(base ok)"
CDM_FETCH_BASE=$(base ok) run_cdm install 9.27 --cuda 13 --sha256 0000000000000000000000000000000000000000000000000000000000000000
expect_rc 1 "a --sha256 neither source has is refused"
check "and nothing is installed" test ! -e "$CDM_ROOT/9.27.0.48-cuda13"
config "sources = nvidia, conda"
run_cdm install 9.0
expect_rc 1 "an unknown source in [fetch] sources is a configuration error"
expect_err "give nvidia, pypi and registries" "saying what may be given"
: >"$CDM_CONFIG"
run_cdm install 9.0 --from npm
expect_rc 2 "--from takes nvidia or pypi only"

# NVIDIA's real wheel, served by the same index.
real=$(real_wheel manylinux2014_x86_64 2>"$SCRATCH/real.err")
if [ -z "$real" ]; then
  skip_tool "NVIDIA's real wheel through the index" "$(tail -1 "$SCRATCH/real.err")"
else
  $mi real --link "$real"
  rm_store "$CDM_ROOT"
  config "index_url = $(index ok real)"
  run_cdm install 9.1 --from pypi --json
  expect_rc 0 "NVIDIA's real nvidia-cudnn-cu12 wheel installs from the loopback index"
  check "as 9.1.0.70-cuda12" test "$(json 'd["id"]')" = 9.1.0.70-cuda12
  run_cdm verify
  expect_rc 0 "and verifies"
fi

done_testing
