# Shared by the command-line scenarios: TAP output, a scratch folder, helpers.
# Each scenario runs `cdm` ($CDM) against a store in its own temporary folder.
set -u

# The TAP counter has a name no scenario uses for its own (T, a short name, was taken by
# scenarios for a folder once, and the plan line then said nothing).
CDM_TAP_COUNT=0
FAILED=0
. "$TESTS_DIR/rm_tree.sh" || exit 1
# The user's own HOME, before the scenario's scratch one replaces it: the test cache lives
# there (test_cache).
export CDM_REAL_HOME=${CDM_REAL_HOME:-$HOME}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/cdm-test.XXXXXX")
export CDM_ROOT="$SCRATCH/store"
export CDM_CONFIG="$SCRATCH/config.ini"
export HOME="$SCRATCH/home"
# The user's state (projects' history) goes to its default place under this HOME.
unset XDG_DATA_HOME CDM_STATE
# shellcheck disable=SC2034 # for the scenarios that source this file
STATE_DB="$HOME/.local/share/cdm/state.db"
# No scenario reaches the Internet: a version missing from the sources is not downloaded
# from NVIDIA. The download scenarios point this at their loopback mirror.
export CDM_FETCH_BASE=off
# Nor does a CUDA toolkit this machine has in /usr/local change what activation gives:
# only one a test names in CUDA_PATH or CUDA_HOME (toolkit_kept.sh looks for them itself).
export CDM_FIND_TOOLKIT=false
mkdir -p "$HOME"
: >"$CDM_CONFIG"
# rm_store DIR...: a store (or a folder holding one) removed as `cdm store delete` would
rm_store() { rm_tree "$@"; }
# by_hand DIR CMD...: CMD run with write bits on DIR's folders and files, as a user editing
# the read-only store by hand first gives them; taken back after (the store's files and
# folders have none, so the modes are as installed again)
by_hand() {
  local d=$1 rc
  shift
  chmod -R u+w -- "$d" && "$@"
  rc=$?
  chmod -R a-w -- "$d"
  return $rc
}
trap 'rm_store "$SCRATCH"' EXIT

# registry_reachable [URL]: the package registry (pip's index: $PIP_INDEX_URL, else PyPI;
# or URL) answers within 5 s. Else the reason on stdout and status 1: a scenario skips at
# once, naming it, rather than waiting on pip's retries on a machine that is offline.
registry_reachable() {
  python3 - "${1:-${PIP_INDEX_URL:-https://pypi.org/simple/}}" <<'PY'
import sys, urllib.request
url = sys.argv[1]
try:
    urllib.request.urlopen(url, timeout=5).close()
except Exception as e:
    print(f"the package registry {url} cannot be reached within 5 s ({e})")
    sys.exit(1)
PY
}

# wheel_cache: where NVIDIA's real wheels are kept between runs: $CDM_WHEEL_CACHE, else
# /var/cache/cdm-wheels when this user can write it or it holds wheels already (root's
# download, read by a user's run), else the user's ~/.cache/cdm-wheels
wheel_cache() {
  local shared=/var/cache/cdm-wheels
  if [ -n "${CDM_WHEEL_CACHE:-}" ]; then
    printf '%s\n' "$CDM_WHEEL_CACHE"
  elif { mkdir -p "$shared" 2>/dev/null && [ -w "$shared" ]; } || ls "$shared"/*.whl >/dev/null 2>&1; then
    printf '%s\n' "$shared"
  else
    printf '%s\n' "${CDM_REAL_HOME:-$HOME}/.cache/cdm-wheels"
  fi
}

ok() { CDM_TAP_COUNT=$((CDM_TAP_COUNT + 1)); echo "ok $CDM_TAP_COUNT - $*"; }
not_ok() { CDM_TAP_COUNT=$((CDM_TAP_COUNT + 1)); FAILED=$((FAILED + 1)); echo "not ok $CDM_TAP_COUNT - $*"; }
skip() { CDM_TAP_COUNT=$((CDM_TAP_COUNT + 1)); echo "ok $CDM_TAP_COUNT - $1 # SKIP $2"; }
# skip_tool "description" "reason": a tool that .ci/run installs is missing. Under CI=true
# (.ci/run sets it) that is a failure: a check that matters must not vanish silently.
skip_tool() {
  if [ "${CI-}" = true ]; then not_ok "$1 (CI=true, and $2)"; else skip "$1" "$2"; fi
}
# need_stub_tools "what": a C compiler ($CC, for stand-in libraries) and a python3 with
# ctypes ($PY, which python3 then runs); without them the scenario skips and ends here.
need_stub_tools() {
  CC=${CC:-cc}
  PY=$(python3 -c 'import sys, ctypes; print(sys.executable)' 2>/dev/null)
  if ! command -v "$CC" >/dev/null 2>&1 || [ -z "$PY" ]; then
    skip_tool "$1" "no C compiler ($CC) to build stand-ins, or no python3 with ctypes"
    done_testing
    exit
  fi
  # shellcheck disable=SC2317 # called by the scenario after this returns
  python3() { "$PY" "$@"; }
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# check "description" command...: passes when the command succeeds
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# run_cdm ARGS...: runs cdm, keeps stdout in $OUT, stderr in $ERR, status in $RC
run_cdm() {
  OUT=$("$CDM" "$@" 2>"$SCRATCH/stderr")
  RC=$?
  ERR=$(cat "$SCRATCH/stderr")
  return 0
}

# expect_rc N "description": the last run_cdm ended with status N
expect_rc() {
  if [ "$RC" -eq "$1" ]; then
    ok "$2"
  else
    not_ok "$2 (status $RC, want $1)"
    diag "stdout: $OUT" "stderr: $ERR"
  fi
}

# expect_err PATTERN "description": stderr of the last run matches an extended regex
expect_err() {
  if printf '%s' "$ERR" | grep -Eq -- "$1"; then
    ok "$2"
  else
    not_ok "$2"
    diag "stderr was: $ERR" "wanted: $1"
  fi
}

# json EXPR: evaluate a Python expression on the last stdout parsed as JSON (as `d`)
json() {
  printf "%s" "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin); print(($1))"
}

# sql_on DB SQL: run SQL (several statements) on an SQLite file with Python's sqlite3, print
# the last statement's rows, one a line, columns joined by '|'
sql_on() {
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
*head, last = [s for s in sys.argv[2].split(";") if s.strip()]
for s in head:
    c.execute(s)
for row in c.execute(last):
    print("|".join(str(x) for x in row))
PY
}

# fixture NAME [make_fixture options]: make an archive in $SCRATCH/archives, print its path
fixture() {
  local name=$1
  shift
  mkdir -p "$SCRATCH/archives"
  "$MAKE_FIXTURE" "$SCRATCH/archives/$name" "$@" || return 1
  printf '%s\n' "$SCRATCH/archives/$name"
}

# dists SITE [DIST VERSION REQUIRES-DIST]...: a dist-info per triple in the site-packages
# folder SITE, whose METADATA names it and its one Requires-Dist ("" for none)
dists() {
  local sp=$1
  shift
  while [ $# -ge 3 ]; do
    mkdir -p "$sp/$1-$2.dist-info"
    printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$1" "$2" >"$sp/$1-$2.dist-info/METADATA"
    [ -n "$3" ] && printf 'Requires-Dist: %s\n' "$3" >>"$sp/$1-$2.dist-info/METADATA"
    shift 3
  done
}

# tree_digest DIR: one line per entry (type, path, size or link) for comparing folders
tree_digest() {
  (cd "$1" 2>/dev/null && find . -printf '%y %p %s %l\n' | sort)
}

# empty_dir DIR: DIR is a folder, and holds nothing (a folder that is not there is no
# evidence: `ls -A` of it prints nothing too)
empty_dir() { [ -d "$1" ] && [ -z "$(ls -A "$1")" ]; }

done_testing() {
  echo "1..$CDM_TAP_COUNT"
  [ "$FAILED" -eq 0 ]
}
