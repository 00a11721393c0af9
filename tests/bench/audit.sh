#!/bin/bash
# What the redirect of `cdm activate --redirect` ([activate] redirect) costs every program
# the activated shell starts: /bin/true, and python3 (which maps more libraries, each one a
# search cdm-audit.so is asked about), each started with and without LD_AUDIT naming
# cdm-audit.so and CDM_REDIRECT_DIR set, as activation leaves them. Both sides start through
# env(1), so the difference is the audit library's alone.
# Usage: tests/bench/audit.sh [path/to/build]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
audit=$build/cdm-audit.so
[ -f "$audit" ] || { echo "no $audit: build first" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "hyperfine is missing: apt-get install hyperfine" >&2; exit 1; }
py=$(command -v /usr/bin/python3 || command -v python3) # not a version manager's shim script
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
mkdir -p "$work/lib" # an install's lib folder with no file of the names asked for
with=(env "LD_AUDIT=$audit" "CDM_REDIRECT_DIR=$work/lib")
# In turns, rounds of a few runs, the median round (turns.py says why).
report() { # NAME REFERENCE COMMAND
  python3 "$here/turns.py" "$2" "$3" >"$work/turns"
  {
    IFS=$'\t' read -r _ t
    IFS=$'\t' read -r _ a ar al ah
  } <"$work/turns"
  printf '%-10s %7.2f ms, with the audit library %7.2f ms: +%.2f ms (%.2fx, rounds %.2fx to %.2fx)\n' \
    "$1" "$t" "$a" "$(echo "$a - $t" | bc -l)" "$ar" "$al" "$ah"
}
report /bin/true "env /bin/true" "${with[*]} /bin/true"
report python3 "env $py -c pass" "${with[*]} $py -c pass"
