# cdm default under Wine: activation outside any project needs no junction, so it runs
# here; --persist / --unpersist edit HKCU\Environment, read back with `wine reg query`.
# The registry is a private copy of the shared prefix's (its drive_c shared), so that
# the PATH persisted here reaches no other scenario running at the same time.
. "$TESTS_DIR/win/lib.sh"

if ! has_command default; then
  skip "cdm default under Wine" "cdm default is not in this build"
  done_testing
  exit
fi
shared=$WINEPREFIX
export WINEPREFIX=$SCRATCH/wineprefix
mkdir -p "$WINEPREFIX/dosdevices"
cp "$shared"/*.reg "$shared/.update-timestamp" "$WINEPREFIX/"
ln -s "$shared/drive_c" "$WINEPREFIX/drive_c"
ln -s ../drive_c "$WINEPREFIX/dosdevices/c:"
ln -s / "$WINEPREFIX/dosdevices/z:"
trap 'WINEPREFIX="$SCRATCH/wineprefix" wineserver -k 2>/dev/null; rm -rf "$SCRATCH"' EXIT

"$WINE" "$CDM_EXE" install "$(wpath "$(fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip)")" >/dev/null 2>&1
ID=8.8.0.121-cuda11
DIR="$CDM_ROOT\\$ID"

# regq NAME: "TYPE VALUE" of HKCU\Environment\NAME, "absent" when there is none
regq() {
  "$WINE" reg query 'HKCU\Environment' /v "$1" 2>/dev/null | tr -d '\r' |
    awk -v n="$1" 'tolower($1) == tolower(n) { t = $2; $1 = ""; $2 = ""; sub(/^  /, ""); print t " " $0; f = 1 } END { if (!f) print "absent" }'
}
regset() { "$WINE" reg add 'HKCU\Environment' /v "$1" /t "$2" /d "$3" /f >/dev/null 2>&1; }
regdel() { "$WINE" reg delete 'HKCU\Environment' /v "$1" /f >/dev/null 2>&1; }

# What the user had: a PATH with an expandable entry, a CUDA_PATH of a toolkit, no CUDNN_PATH.
regset PATH REG_EXPAND_SZ '%USERPROFILE%\bin;C:\tools'
regset CUDA_PATH REG_SZ 'C:\CUDA\v11.8'
regdel CUDNN_PATH
before="$(regq PATH)|$(regq CUDA_PATH)|$(regq CUDNN_PATH)"

run_cdm default 8.8.0
expect_rc 0 "cdm default 8.8.0 under Wine"
run_cdm activate --shell cmd
expect_rc 0 "activate outside any project uses the default (no junction needed)"
check "and sets CUDA_PATH to the install" grep -qiF "set \"CUDA_PATH=$DIR\"" <<<"$OUT"

run_cdm --json default --persist
expect_rc 0 "cdm default --persist"
check "changed true" test "$(json 'd["changed"]')" = True
check "CUDA_PATH in HKCU\\Environment is the install" test "$(regq CUDA_PATH)" = "REG_SZ $DIR"
check "CUDNN_PATH too" test "$(regq CUDNN_PATH)" = "REG_SZ $DIR"
check "PATH stays REG_EXPAND_SZ, the install's bin first, the user's entries unexpanded" \
  test "$(regq PATH)" = "REG_EXPAND_SZ $DIR\\bin;%USERPROFILE%\\bin;C:\\tools"
run_cdm --json default --persist
check "persist again: changed false, one entry" \
  test "$(json 'd["changed"]')" = False -a "$(regq PATH)" = "REG_EXPAND_SZ $DIR\\bin;%USERPROFILE%\\bin;C:\\tools"

run_cdm --json default --unpersist
expect_rc 0 "cdm default --unpersist"
check "the registry is as it was (PATH, CUDA_PATH, no CUDNN_PATH)" \
  test "$(regq PATH)|$(regq CUDA_PATH)|$(regq CUDNN_PATH)" = "$before"

# cmd ignores a PATH over 8191 characters: persist refuses and changes nothing.
long="C:\\$(head -c 8200 /dev/zero | tr '\0' a)"
regset PATH REG_EXPAND_SZ "$long"
run_cdm default --persist
expect_rc 1 "a PATH that would pass 8191 characters is refused"
expect_err "8191" "saying why"
check "and nothing was written" test "$(regq CUDA_PATH)" = "REG_SZ C:\\CUDA\\v11.8"
run_cdm --json default
check "and the default stayed" test "$(json 'd["default"]')" = "$ID"

# Without a PATH or CUDA_PATH before, unpersist leaves none.
regdel PATH
regdel CUDA_PATH
"$WINE" "$CDM_EXE" default --persist >/dev/null 2>&1
check "persist made PATH" test "$(regq PATH)" = "REG_EXPAND_SZ $DIR\\bin"
"$WINE" "$CDM_EXE" default --unpersist >/dev/null 2>&1
check "unpersist removed PATH, CUDA_PATH and CUDNN_PATH again" \
  test "$(regq PATH)|$(regq CUDA_PATH)|$(regq CUDNN_PATH)" = "absent|absent|absent"

# A toolkit there (CUDA_PATH names it, as NVIDIA's installer sets it): the persisted
# CUDA_PATH does not hide it: a view of it with the default on top where junctions can be
# made, else the toolkit kept as it is, with a warning. --unpersist gives it back.
TK=$SCRATCH/v11.8
mkdir -p "$TK/bin" "$TK/lib/x64" "$TK/include"
printf '{"cuda": {"name": "CUDA SDK", "version": "11.8.89"}}\n' >"$TK/version.json"
echo 'MZ stand-in nvcc' >"$TK/bin/nvcc.exe"
regset CUDA_PATH REG_SZ "$(wpath "$TK")"
CUDA_PATH=$(wpath "$TK") run_cdm default --persist
expect_rc 0 "persist with CUDA_PATH naming a CUDA 11.8 toolkit"
got=$(regq CUDA_PATH)
if junctions_work; then
  check "HKCU's CUDA_PATH is a view of the toolkit with the default on top" \
    sh -c 'case "$1" in "REG_SZ $2\\views\\8.8.0.121-cuda11+cuda11.8.89-"*.shell) exit 0 ;; esac; exit 1' _ "$got" "$CDM_ROOT"
  # shellcheck disable=SC1003 # '\\' is tr's escaped backslash, not an escaped quote
  vpath=$(printf '%s' "${got#REG_SZ Z:}" | tr '\\' /)
  check "whose bin holds nvcc.exe and the default's cudnn64_8.dll" \
    test -e "$vpath/bin/nvcc.exe" -a -e "$vpath/bin/cudnn64_8.dll"
else
  check "no view without junctions: HKCU's CUDA_PATH keeps the toolkit" test "$got" = "REG_SZ $(wpath "$TK")"
fi
check "CUDNN_PATH is the install" test "$(regq CUDNN_PATH)" = "REG_SZ $DIR"
run_cdm default --unpersist
check "--unpersist gives CUDA_PATH back as the toolkit" test "$(regq CUDA_PATH)" = "REG_SZ $(wpath "$TK")"
done_testing
