# Activation never hides a CUDA toolkit, under Wine with junctions: with CUDA_PATH naming a
# toolkit (as NVIDIA's installer sets it) and a project whose link records none, cdm.exe's
# own cmd text, run by Wine's cmd, leaves nvcc.exe and the project's cudnn64_9.dll both in
# %CUDA_PATH%\bin (a view of the toolkit with the project's cuDNN on top), and deactivation
# gives CUDA_PATH back.
. "$TESTS_DIR/win/lib.sh"

if ! junctions_work; then
  skip "a toolkit kept in CUDA_PATH by activation" \
    "junctions cannot be made here (stock Wine 8), so no project or view can be made"
  done_testing
  exit
fi
TK=$SCRATCH/v12.4
mkdir -p "$TK/bin" "$TK/include" "$TK/lib/x64"
printf '{"cuda": {"name": "CUDA SDK", "version": "12.4.131"}}\n' >"$TK/version.json"
echo 'MZ stand-in nvcc' >"$TK/bin/nvcc.exe"
echo 'MZ stand-in cudart' >"$TK/bin/cudart64_12.dll"
echo '/* runtime */' >"$TK/include/cuda_runtime.h"
P=$SCRATCH/proj
mkdir -p "$P"
run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip)")"
expect_rc 0 "9.1 installs"
run_cdm link "$(wpath "$P")" 9.1.0.70
expect_rc 0 "the project links (a junction), no toolkit recorded"

# cdm.exe's own text in a batch file (Wine's cmd cannot run a command a FOR variable holds,
# which the documented `for /f` line does), then what cmd sees through the variables.
CUDA_PATH=$(wpath "$TK") run_cdm activate --shell cmd -- "$(wpath "$P")"
expect_rc 0 "cdm.exe activate --shell cmd with CUDA_PATH naming a toolkit"
printf '%s\r\n' "$OUT" >"$SCRATCH/activate.cmd"
CUDA_PATH=$(wpath "$TK") run_cdm deactivate --shell cmd
{
  printf '@echo off\r\n'
  printf 'call "%s"\r\n' "$(wpath "$SCRATCH/activate.cmd")"
  printf 'echo CUDA_PATH=%%CUDA_PATH%%\r\n'
  printf 'if exist "%%CUDA_PATH%%\\bin\\nvcc.exe" echo nvcc: yes\r\n'
  printf 'if exist "%%CUDA_PATH%%\\bin\\cudnn64_9.dll" echo cudnn: yes\r\n'
  printf 'if exist "%%CUDA_PATH%%\\bin\\cudart64_12.dll" echo cudart: yes\r\n'
  printf 'if exist "%%CUDA_PATH%%\\include\\cudnn.h" echo header: yes\r\n'
  printf 'echo CUDNN_PATH=%%CUDNN_PATH%%\r\n'
} >"$SCRATCH/check.cmd"
seen=$(CUDA_PATH=$(wpath "$TK") "$WINE" cmd /c "$(wpath "$SCRATCH/check.cmd")" 2>/dev/null | tr -d '\r')
view=$(printf '%s\n' "$seen" | sed -n 's/^CUDA_PATH=//p')
check "CUDA_PATH is a view in the store, not the cuDNN-only link" \
  sh -c 'case "$1" in "$2"\\views\\9.1.0.70-cuda12+cuda12.4.131-*.shell) exit 0 ;; esac; exit 1' _ "$view" "$CDM_ROOT"
[ -n "$view" ] || diag "cmd saw: $seen"
check "nvcc.exe is reached through %CUDA_PATH%\\bin" sh -c 'printf "%s" "$1" | grep -qx "nvcc: yes"' _ "$seen"
check "and the project's cudnn64_9.dll through %CUDA_PATH%\\bin too" \
  sh -c 'printf "%s" "$1" | grep -qx "cudnn: yes"' _ "$seen"
check "and the toolkit's cudart and cuDNN's header" \
  sh -c 'printf "%s" "$1" | grep -qx "cudart: yes" && printf "%s" "$1" | grep -qx "header: yes"' _ "$seen"
check "CUDNN_PATH is the project's link" \
  sh -c 'printf "%s" "$1" | grep -qxF "CUDNN_PATH=$2"' _ "$seen" "$(wpath "$P")\\cuda_link"
# shellcheck disable=SC1003 # '\\' is tr's escaped backslash, not an escaped quote
vpath=$(printf '%s' "${view#Z:}" | tr '\\' /)
check "the DLL there is the install's own bytes" \
  cmp -s "$vpath/bin/cudnn64_9.dll" "$CDM_ROOT_POSIX/9.1.0.70-cuda12/bin/cudnn64_9.dll"

# Deactivation, run from the activated environment, gives CUDA_PATH back.
{
  printf '@echo off\r\n'
  printf 'call "%s"\r\n' "$(wpath "$SCRATCH/activate.cmd")"
  printf '"%s" deactivate --shell cmd > "%s"\r\n' "$(wpath "$CDM_EXE")" "$(wpath "$SCRATCH/deactivate.cmd")"
  printf 'call "%s"\r\n' "$(wpath "$SCRATCH/deactivate.cmd")"
  printf 'echo CUDA_PATH=%%CUDA_PATH%%\r\n'
} >"$SCRATCH/back.cmd"
seen=$(CUDA_PATH=$(wpath "$TK") "$WINE" cmd /c "$(wpath "$SCRATCH/back.cmd")" 2>/dev/null | tr -d '\r')
check "deactivation gives CUDA_PATH back" \
  sh -c 'printf "%s" "$1" | grep -qxF "CUDA_PATH=$2"' _ "$seen" "$(wpath "$TK")"
done_testing
