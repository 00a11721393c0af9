# Shared by the Windows scenarios: cdm.exe ($CDM_EXE) runs under Wine ($WINE), with
# Windows paths on Wine's Z: drive, which maps the Linux root. Builds on ../cli/lib.sh.
# The Wine prefix is chosen before cli/lib.sh moves HOME into the scratch folder, so
# that Wine does not set up a new prefix for every scenario.
export WINEPREFIX=${WINEPREFIX:-$HOME/.wine}
export WINEDEBUG=-all
. "$TESTS_DIR/cli/lib.sh"

# wpath PATH: the Windows form of an absolute Linux path (Z:\...)
wpath() { printf 'Z:%s\n' "$(printf '%s' "$1" | tr / '\\')"; }

export CDM_ROOT_POSIX=$CDM_ROOT
CDM_ROOT=$(wpath "$CDM_ROOT")
CDM_CONFIG=$(wpath "$CDM_CONFIG")
export CDM_ROOT CDM_CONFIG

# run_cdm ARGS...: cdm.exe under Wine; stdout in $OUT, stderr in $ERR (without the CRs of
# text mode), status in $RC
run_cdm() {
  "$WINE" "$CDM_EXE" "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  RC=$?
  OUT=$(tr -d '\r' <"$SCRATCH/stdout")
  ERR=$(tr -d '\r' <"$SCRATCH/stderr")
  return 0
}

# has_command NAME: this cdm.exe knows the command (other branches bring some)
has_command() {
  "$WINE" "$CDM_EXE" help "$1" >/dev/null 2>&1
}
