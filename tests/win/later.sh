# Windows scenarios for activation and the doctor under Wine: the cmd text of activation
# run by Wine's cmd with the variables read back, and cdm doctor on stand-in cuDNN DLLs
# built by mingw-w64 (tests/stub_cudnn.c).
. "$TESTS_DIR/win/lib.sh"

# ---- cmd ------------------------------------------------------------------------------
# Where junctions can be made (the Wine with junction patches), cmd runs cdm.exe's own text
# for real projects. Under stock Wine 8 no junction can be made, so `cdm activate` finds no
# project link: emit_activation (tests/win/emit_activation.c) writes what `cdm activate
# --shell cmd` and `cdm deactivate --shell cmd` would, through the same core calls, for the
# project named by CDM_TEST_PROJECT (a cmd command line would expand a '%' of the name
# before the program saw it; the text the program writes is what is under test).

EMIT=$(wpath "$EMIT_ACTIVATION")
# A folder name with what cmd treats specially (';' is below: refused). Non-ASCII names are
# cmd_codepage.sh's: Wine 8's cmd decodes what a FOR /F command prints byte for byte as
# Latin-1 and `set` prints it back the same way, so comparing those bytes here would pass
# for any encoding; that scenario reads the UTF-16 a program receives.
PROJ="$(wpath "$SCRATCH")\\it's 100% ^&x (y) !z! %PATH% and more"
LINK="$PROJ\\cuda_link"
ENTRY="$LINK\\bin"
ID=8.8.0.121-cuda11
OTHER="$(wpath "$SCRATCH")\\other project"
export CDM_TEST_PROJECT=$PROJ CDM_TEST_LINK=$LINK CDM_TEST_ID=$ID CDM_TEST_BIN_DIR=bin

# run_cmd NAME LINE...: a batch file of these lines (CRLF), run by `wine cmd /c`; stdout in
# $SCRATCH/NAME.out, stderr in $SCRATCH/NAME.err, without CRs. The console code page is
# UTF-8 first, so that `for /f` reads the program's UTF-8 output as UTF-8.
run_cmd() {
  local name=$1
  shift
  { printf '@echo off\r\nchcp 65001 >NUL\r\n'; printf '%s\r\n' "$@"; } >"$SCRATCH/$name.cmd"
  (cd "${RUN_DIR:-$SCRATCH}" && "$WINE" cmd /c "$(wpath "$SCRATCH/$name.cmd")") \
    >"$SCRATCH/$name.raw" 2>"$SCRATCH/$name.rawerr"
  RC=$?
  tr -d '\r' <"$SCRATCH/$name.raw" >"$SCRATCH/$name.out"
  tr -d '\r' <"$SCRATCH/$name.rawerr" >"$SCRATCH/$name.err"
}

# section FILE NAME: the `set` listing printed after "==== NAME" (up to the next marker)
section() {
  awk -v want="==== $2" '/^==== / { on = ($0 == want); next } on' "$1"
}

# var LISTING NAME: NAME's value in a `set` listing (names compare without case); status 1
# when NAME is not set
var() {
  local line lname
  lname=$(printf '%s' "$2" | tr '[:upper:]' '[:lower:]')
  while IFS= read -r line; do
    if [ "$(printf '%s' "${line%%=*}" | tr '[:upper:]' '[:lower:]')" = "$lname" ]; then
      printf '%s\n' "${line#*=}"
      return 0
    fi
  done <<<"$1"
  return 1
}

# is VAR LISTING NAME VALUE: NAME holds exactly VALUE
is() {
  local got
  got=$(var "$1" "$2") && [ "$got" = "$3" ] && return 0
  diag "$2: got '${got:-<unset>}'" "$2: want '$3'"
  return 1
}
unset_in() { ! var "$1" "$2" >/dev/null; }

"$WINE" "$EMIT_ACTIVATION" activate >"$SCRATCH/emit.raw" 2>"$SCRATCH/emit.err"
RC=$?
tr -d '\r' <"$SCRATCH/emit.raw" >"$SCRATCH/emit.out"
# CDM_SAVED_ and the value for CUDA_PATH, CUDNN_PATH, PATH, CUDNN_ROOT and CUDNN_ROOT_DIR,
# then CDM_PATH_ENTRY, CDM_PROJECT and CDM_ACTIVE
check "the cmd activation text: 13 lines, each 'set \"NAME=...\"'" \
  test "$RC" -eq 0 -a "$(grep -c '^set "[A-Z_]*=.*"$' "$SCRATCH/emit.out")" -eq 13 \
  -a "$(wc -l <"$SCRATCH/emit.out")" -eq 13
check "the folder name is in it verbatim (nothing escaped: set \"...\" takes it as it is)" \
  grep -qF "set \"CDM_PROJECT=$PROJ\"" "$SCRATCH/emit.out"

# ';' separates PATH entries and cannot be quoted there for the DLL loader: a project
# folder named with it is refused, and nothing is written for cmd to run.
CDM_TEST_PROJECT="$PROJ;b" CDM_TEST_LINK="$PROJ;b\\cuda_link" \
  "$WINE" "$EMIT_ACTIVATION" activate >"$SCRATCH/semi.out" 2>"$SCRATCH/semi.err"
RC=$?
check "a project folder named with ';' is refused (status 1), with no text for cmd" \
  test "$RC" -eq 1 -a ! -s "$SCRATCH/semi.out"

# Real cmd runs a command that a FOR variable holds, so the documented form is
# `for /f "delims=" %i in ('cdm activate --shell cmd') do @%i`. Wine 8's cmd does not: it
# looks for a program named by the whole line. Every line being `set "..."` (checked
# above), the scenario runs the same set commands by naming `set` itself: the rest of the
# line reaches set exactly as in the documented form (FOR variables are substituted after
# cmd has expanded '%' and read '^', '&' and parentheses, in both forms).
FOR='for /f "tokens=1* delims= " %%a in'
DO='do @if "%%a"=="set" set %%b'
# Where junctions can be made, the text is cdm.exe's own, for real projects of these names
# (cmd starts in the first; the other is reached through a variable, which cmd expands
# once, so its '%' stays); else emit_activation's, through the same core calls.
ACT="$EMIT activate" DEACT="$EMIT deactivate"
TO_OTHER=("set \"CDM_TEST_PROJECT=$OTHER\"" "set \"CDM_TEST_LINK=$OTHER\\cuda_link\"")
if junctions_work; then
  # shellcheck disable=SC1003 # '\\' is tr's escaped backslash, not an escaped quote
  proj_posix=$(printf '%s' "${PROJ#Z:}" | tr '\\' /)
  # shellcheck disable=SC1003 # '\\' is tr's escaped backslash, not an escaped quote
  other_posix=$(printf '%s' "${OTHER#Z:}" | tr '\\' /)
  mkdir -p "$proj_posix" "$other_posix"
  # 9.1, not 8.8.0: the doctor's part below installs 8.8.0 with stand-in DLLs
  run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip)")"
  ID=9.1.0.70-cuda12
  run_cdm link "$PROJ" "$ID"
  expect_rc 0 "a project named with % ^ & ( ) ! ' links (a junction)"
  run_cdm link "$OTHER" "$ID"
  ACT="\"$(wpath "$CDM_EXE")\" activate --shell cmd" DEACT="\"$(wpath "$CDM_EXE")\" deactivate --shell cmd"
  TO_OTHER=('cd /d "%CDM_TEST_OTHER%"')
  export CDM_TEST_OTHER=$OTHER RUN_DIR=$proj_posix
fi
run_cmd activation \
  'set "CUDA_PATH=C:\old cuda"' 'set "CUDNN_PATH="' \
  'echo ==== before' 'set' \
  "$FOR ('$ACT') $DO" 'echo ==== first' 'set' \
  "$FOR ('$ACT') $DO" 'echo ==== again' 'set' \
  "${TO_OTHER[@]}" \
  "$FOR ('$ACT') $DO" 'echo ==== other' 'set' \
  "$FOR ('$DEACT') $DO" 'echo ==== deactivated' 'set' \
  "$FOR ('$DEACT') $DO" 'echo ==== twice' 'set'
# (a deactivation with nothing active says so on stderr)
check "Wine's cmd ran the batch file" \
  test "$RC" -eq 0 -a -z "$(grep -v 'nothing is active in this shell' "$SCRATCH/activation.err")"
grep -v 'nothing is active in this shell' "$SCRATCH/activation.err" | grep -q . &&
  diag "$(cat "$SCRATCH/activation.err")"
before=$(section "$SCRATCH/activation.out" before)
first=$(section "$SCRATCH/activation.out" first)
again=$(section "$SCRATCH/activation.out" again)
other=$(section "$SCRATCH/activation.out" other)
deact=$(section "$SCRATCH/activation.out" deactivated)
twice=$(section "$SCRATCH/activation.out" twice)
old_path=$(var "$before" PATH)
check "before: PATH is Wine's, CUDA_PATH set, CUDNN_PATH unset" \
  test -n "$old_path" -a "$(var "$before" CUDA_PATH)" = 'C:\old cuda' -a -z "$(var "$before" CUDNN_PATH)"

check "activated: CUDA_PATH is the project's link, with % ^ & ( ) ! ' intact" \
  is "$first" CUDA_PATH "$LINK"
check "activated: CUDNN_PATH too" is "$first" CUDNN_PATH "$LINK"
check "activated: PATH is the link's bin folder, then the old PATH" \
  is "$first" PATH "$ENTRY;$old_path"
check "activated: CDM_ACTIVE is the install id" is "$first" CDM_ACTIVE "$ID"
check "activated: CDM_PROJECT is the folder, verbatim" is "$first" CDM_PROJECT "$PROJ"
check "activated: CDM_PATH_ENTRY is the bin folder" is "$first" CDM_PATH_ENTRY "$ENTRY"
check "activated: CDM_SAVED_CUDA_PATH keeps the old CUDA_PATH" \
  is "$first" CDM_SAVED_CUDA_PATH 'set:C:\old cuda'
check "activated: CDM_SAVED_CUDNN_PATH says unset" is "$first" CDM_SAVED_CUDNN_PATH unset
check "activated: CDM_SAVED_PATH holds the old PATH" is "$first" CDM_SAVED_PATH "set:$old_path"

check "activated twice: PATH unchanged, the bin folder once" is "$again" PATH "$ENTRY;$old_path"
check "activated twice: the saved values are still the first ones" \
  is "$again" CDM_SAVED_PATH "set:$old_path"
check "another project: its bin folder replaces the first one's on PATH" \
  is "$other" PATH "$OTHER\\cuda_link\\bin;$old_path"
check "another project: CUDA_PATH, CDM_PROJECT follow; the saved CUDA_PATH stays" \
  is "$other" CUDA_PATH "$OTHER\\cuda_link"
check "another project: CDM_PROJECT" is "$other" CDM_PROJECT "$OTHER"
check "another project: the saved CUDA_PATH stays the first one" \
  is "$other" CDM_SAVED_CUDA_PATH 'set:C:\old cuda'

check "deactivated: PATH is back, byte for byte" is "$deact" PATH "$old_path"
check "deactivated: CUDA_PATH is back" is "$deact" CUDA_PATH 'C:\old cuda'
check "deactivated: CUDNN_PATH, unset before, is unset again" unset_in "$deact" CUDNN_PATH
left=$(for v in CDM_ACTIVE CDM_PROJECT CDM_PATH_ENTRY CDM_SAVED_CUDA_PATH CDM_SAVED_CUDNN_PATH CDM_SAVED_PATH; do
  var "$deact" "$v" >/dev/null && printf '%s ' "$v"; done)
check "deactivated: no CDM_ state variable is left${left:+ (left: $left)}" test -z "$left"
check "deactivating again changes nothing" test "$twice" = "$deact"

# A PATH with an entry an installer quoted ("C:\Program Files\Foo"): set "NAME=value" keeps
# a quote inside, so activation writes it, and deactivation gives PATH back as it was.
run_cmd quoted 'set "PATH="C:\Program Files\Foo";%PATH%"' 'echo ==== before' 'set' \
  "$FOR ('$ACT') $DO" 'echo ==== first' 'set' \
  "$FOR ('$DEACT') $DO" 'echo ==== deactivated' 'set'
qpath=$(var "$(section "$SCRATCH/quoted.out" before)" PATH)
check "a PATH with a quoted entry: cmd runs the activation" test "$RC" -eq 0 -a ! -s "$SCRATCH/quoted.err"
[ -s "$SCRATCH/quoted.err" ] && diag "$(cat "$SCRATCH/quoted.err")"
check "which starts with the quoted entry" \
  sh -c 'case $1 in "\"C:\\Program Files\\Foo\";"*) exit 0 ;; esac; exit 1' _ "$qpath"
check "activated: the bin folder, then that PATH, quotes and all" \
  is "$(section "$SCRATCH/quoted.out" first)" PATH "$ENTRY;$qpath"
check "deactivated: PATH back byte for byte" is "$(section "$SCRATCH/quoted.out" deactivated)" PATH "$qpath"

# The documented form itself, in case this Wine's cmd runs it.
run_cmd documented \
  "for /f \"delims=\" %%i in ('$ACT') do @%%i" 'echo ==== first' 'set'
if grep -q "^Can't recognize 'set " "$SCRATCH/documented.err"; then
  skip "activate for cmd as documented: for /f ... do @%i" \
    "Wine 8's cmd does not run a command held by a FOR variable ('Can't recognize'); real cmd does, see docs/windows.md"
else
  check "activate for cmd as documented: for /f ... do @%i" \
    is "$(section "$SCRATCH/documented.out" first)" PATH "$ENTRY;$old_path"
fi

skip "activate for PowerShell" "no PowerShell under Wine; test on Windows (docs/windows.md)"

# ---- doctor ---------------------------------------------------------------------------
status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
fixtext() { json "[c['fix'] for c in d['checks'] if c['name'] == '$1'][0]"; }
# has_detail NAME STATUS TEXT: the check NAME has STATUS and TEXT in its detail
has_detail() {
  local s t
  s=$(status "$1") t=$(detail "$1")
  [ "$s" = "$2" ] && case $t in *"$3"*) true ;; *) false ;; esac && return 0
  diag "$1: $s: $t" "want $2 and: $3"
  return 1
}

# The 8.8.0 zip with the stand-ins' real DLLs in place of the stand-in bytes.
win88=$(fixture_win88)
run_cdm install "$(wpath "$win88")"
expect_rc 0 "the 8.8.0 zip with stand-in DLLs installs"
dll="$CDM_ROOT\\8.8.0.121-cuda11\\bin\\cudnn64_8.dll"
run_cdm doctor --cudnn 8.8.0 --json
check "doctor --json answers" test -n "$OUT"
check "doctor loads cudnn64_8.dll by its absolute path" \
  has_detail library.load ok "loaded '$dll'"
check "and calls cudnnGetVersion: 8800, as installed" \
  has_detail library.version ok "cudnnGetVersion() = 8800 (8.8.0), as installed (8.8.0.121)"
check "cudnnGetCudartVersion: CUDA 11.8" has_detail library.cudart ok "= 11080: built with CUDA 11.8"
check "cudnnCreate's status named (no GPU under Wine)" \
  has_detail library.handle warn "cudnnCreate() returned CUDNN_STATUS_NOT_INITIALIZED (1001)"
check "the PE import table is read and its DLLs found in System32" \
  has_detail deps.cudnn64_8.dll ok "2 import(s), all found: KERNEL32.dll (System32), msvcrt.dll (System32)"
check "the sub-libraries' imports too" has_detail deps.cudnn_ops_infer64_8.dll ok "all found"
# cudnn64_8.dll opens its sub-libraries by name, and Windows searches PATH for them, not
# the DLL's folder: without the install's bin on PATH they are found nowhere.
check "the sub-libraries cuDNN opens by name are found nowhere without bin on PATH" \
  has_detail same.cudnn_ops_infer64_8.dll fail "cudnn64_8.dll opens cudnn_ops_infer64_8.dll by name, and the loader finds it nowhere"
WINEPATH="$CDM_ROOT\\8.8.0.121-cuda11\\bin" run_cdm doctor --cudnn 8.8.0 --json
check "with the install's bin on PATH, as activation puts it, no check fails" \
  test "$RC" -eq 0 -a "$(json 'd["ok"]')" = True

if [ -z "${STUB_CUDNN8_ZLIBWAPI:-}" ]; then
  skip "doctor names a missing zlibwapi.dll" "no dlltool in this build to make zlibwapi.dll's import library"
else
  win88z=$(fixture_win88 "$STUB_CUDNN8_ZLIBWAPI")
  # shellcheck disable=SC2155 # wpath only prints
  export CDM_ROOT=$(wpath "$SCRATCH/store-zlib")
  run_cdm install "$(wpath "$win88z")"
  expect_rc 0 "the 8.8.0 zip whose cudnn64_8.dll imports zlibwapi.dll installs"
  run_cdm doctor --cudnn 8.8.0 --json
  check "doctor fails" test "$RC" -eq 1 -a "$(json 'd["ok"]')" = False
  check "the library does not load" has_detail library.load fail "cannot load '$CDM_ROOT\\8.8.0.121-cuda11\\bin\\cudnn64_8.dll'"
  check "the dependency layer names zlibwapi.dll as missing, and where it comes from" \
    has_detail deps.cudnn64_8.dll fail "missing zlibwapi.dll (zlib's zlibwapi.dll, which cuDNN 8.3 to 9.1 on Windows needs and does not ship)"
  check "and where it looked" has_detail deps.cudnn64_8.dll fail "looked in the DLL's folder, System32, PATH"
  check "KERNEL32 and msvcrt are not reported missing" \
    sh -c 'case $1 in *KERNEL32*|*msvcrt*) exit 1 ;; esac' _ "$(detail deps.cudnn64_8.dll)"
  check "the fix says to install zlibwapi.dll" \
    sh -c 'case $1 in *"install zlib'"'"'s zlibwapi.dll"*) exit 0 ;; esac; exit 1' _ "$(fixtext deps.cudnn64_8.dll)"
fi

done_testing
