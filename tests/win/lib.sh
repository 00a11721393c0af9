# Shared by the Windows scenarios: cdm.exe ($CDM_EXE) runs under Wine ($WINE), with
# Windows paths on Wine's Z: drive, which maps the Linux root. Builds on ../cli/lib.sh.
# The Wine prefix is chosen before cli/lib.sh moves HOME into the scratch folder, so
# that Wine does not set up a new prefix for every scenario.
export WINEPREFIX=${WINEPREFIX:-$HOME/.wine}
export WINEDEBUG=-all
. "$TESTS_DIR/cli/lib.sh"

# wpath PATH: the Windows form of an absolute Linux path (Z:\...)
# shellcheck disable=SC1003 # '\\' is tr's escaped backslash, not an escaped quote
wpath() { printf 'Z:%s\n' "$(printf '%s' "$1" | tr / '\\')"; }

export CDM_ROOT_POSIX=$CDM_ROOT
CDM_ROOT=$(wpath "$CDM_ROOT")
CDM_CONFIG=$(wpath "$CDM_CONFIG")
export CDM_ROOT CDM_CONFIG
# Each scenario its own state: %LOCALAPPDATA% is the Wine prefix's, which all share.
STATE_DB=$SCRATCH/state/state.db
CDM_STATE=$(wpath "$STATE_DB")
export CDM_STATE

# run_cdm ARGS...: cdm.exe under Wine; stdout in $OUT, stderr in $ERR (without the CRs of
# text mode), status in $RC. Wine's heap checks are on for cdm.exe (warn+heap): a block
# freed twice or written past its end is reported, and any report is a failed check of
# its own (Linux frees differently, so the sanitizer build cannot see these).
# shellcheck disable=SC2034 # OUT, RC and ERR are read by the scenarios and by lib.sh's checks
run_cdm() {
  WINEDEBUG=-all,warn+heap "$WINE" "$CDM_EXE" "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  RC=$?
  OUT=$(tr -d '\r' <"$SCRATCH/stdout")
  ERR=$(tr -d '\r' <"$SCRATCH/stderr" | grep -v ':warn:heap:')
  if grep -q ':warn:heap:' "$SCRATCH/stderr"; then
    not_ok "Wine's heap check reports nothing for: cdm.exe $*"
    diag "$(grep -m 3 ':warn:heap:' "$SCRATCH/stderr")"
  fi
  return 0
}

# has_command NAME: this cdm.exe knows the command (other branches bring some)
has_command() {
  "$WINE" "$CDM_EXE" help "$1" >/dev/null 2>&1
}

# fixture_win88 [MAIN_DLL]: the 8.8.0 zip with real stand-in DLLs (tests/stub_cudnn.c) in
# place of the stand-in bytes: cudnn64_8.dll (MAIN_DLL, default $STUB_CUDNN8) and its six
# sub-libraries. Prints its path.
fixture_win88() {
  local subs=() part
  for part in ops_infer ops_train cnn_infer cnn_train adv_infer adv_train; do
    subs+=(--file "bin/cudnn_${part}64_8.dll=$STUB_CUDNN_SUB")
  done
  fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip \
    --file "bin/cudnn64_8.dll=${1:-$STUB_CUDNN8}" "${subs[@]}"
}

# junctions_work: a junction can be made in the scratch folder (Wine with the junction
# patches, or Windows); stock Wine 8 cannot. Asks the file system, not the Wine version.
junctions_work() {
  local d=$SCRATCH/junction-probe r=1
  mkdir -p "$d/target"
  "$WINE" cmd /c mklink /J "$(wpath "$d/link")" "$(wpath "$d/target")" >/dev/null 2>&1
  [ -L "$d/link" ] && r=0
  rm -rf "$d"
  return $r
}
