# rm_tree DIR...: remove folders that may hold a cdm store, as `cdm store delete` does: the
# store's files and folders have no write bits (as a user, plain rm -rf cannot remove them),
# so write bits are given back first, to what lies inside DIR only (chmod -R does not follow
# the links it meets), then everything goes. Says what it could not remove and returns 1.
# Sourced by the scenarios (tests/cli/lib.sh), the demo and the benchmarks: every one
# cleans up through it.
rm_tree() {
  local d rc=0
  for d in "$@"; do
    # shellcheck disable=SC2015 # skipped when either test fails
    [ -n "$d" ] && [ -e "$d" ] || continue
    chmod -R u+w -- "$d" 2>/dev/null
    if ! rm -rf -- "$d" 2>/dev/null || [ -e "$d" ]; then
      echo "# cannot remove '$d': $(find "$d" -maxdepth 3 ! -writable 2>/dev/null | head -n 3 | tr '\n' ' ')" >&2
      rc=1
    fi
  done
  return $rc
}

# test_cache: the folder where the scenarios keep what they download once (uv, Jupyter,
# tree-sitter): the invoking user's own (CDM_TEST_CACHE, else ~/.cache/cdm-test), never a
# shared name in /tmp that another user's run would own. Printed, and made if missing.
test_cache() {
  local c=${CDM_TEST_CACHE:-${CDM_REAL_HOME:-$HOME}/.cache/cdm-test}
  mkdir -p "$c" && printf '%s\n' "$c"
}
