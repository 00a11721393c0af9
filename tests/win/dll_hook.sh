# The DLL folders hook under Wine with junctions: Python 3.8+ loads the DLLs an extension
# module imports only from os.add_dll_directory's folders, never from PATH. A stand-in
# Python (py_loader.c: AddDllDirectory for each folder the hook names, then
# LoadLibraryExW(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) of a module importing cudnn64_9.dll, as
# CPython loads extension modules) finds nothing with PATH alone, the project's cuDNN once
# attached, follows a link and a rollback (across bin\x64 and bin) without attaching again,
# and nothing after detach, the environment byte for byte as before. A real CPython runs
# the .pth line (on Linux, with os.add_dll_directory recorded). Refusals, a crash, an
# environment with the wheel, an embedded Python whose ._pth skips site.
. "$TESTS_DIR/win/lib.sh"

if [ -z "${PY_LOADER-}" ]; then
  skip_tool "the DLL folders hook with a stand-in Python" "no dlltool to build the stand-in module"
  done_testing
  exit
fi
if ! junctions_work; then
  skip "the DLL folders hook with a stand-in Python" \
    "junctions cannot be made here (stock Wine 8), so no project link exists to attach to"
  done_testing
  exit
fi
digest() { (cd "$1" && find . -printf '%y %p %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
records() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM attachments WHERE state <> '"'detached'"'").fetchone()[0])' "$STATE_DB"; }

# A stand-in Python in a folder of its own (the application folder is searched: it must
# hold no cuDNN), an environment with CTranslate2 and ONNX Runtime and no cuDNN wheel.
PYDIR=$SCRATCH/python
mkdir -p "$PYDIR"
cp "$PY_LOADER" "$PYDIR/python.exe"
E=$SCRATCH/venv
SP=$E/Lib/site-packages
mkdir -p "$SP/ctranslate2" "$SP/onnxruntime/capi"
printf 'home = C:\\Python312\ninclude-system-site-packages = false\n' >"$E/pyvenv.cfg"
dists "$SP" ctranslate2 4.5.0 "" onnxruntime_gpu 1.20.1 ""
cp "$PY_MODULE" "$SP/ctranslate2/_ext.pyd"
printf 'import os\n' >"$SP/ctranslate2/__init__.py"
# load [ARG]: the stand-in Python loads CTranslate2's module (or ARG); output in $OUT
load() {
  "$WINE" "$PYDIR/python.exe" "$(wpath "$SP")" "${1:-$(wpath "$SP/ctranslate2/_ext.pyd")}" \
    >"$SCRATCH/load.out" 2>&1
  RC=$?
  OUT=$(tr -d '\r' <"$SCRATCH/load.out")
}

v19=$(fixture cudnn-windows-x86_64-9.19.0.56_cuda12-archive.zip --version 9.19.0.56 \
  --file "bin/x64/cudnn64_9.dll=$STUB_CUDNN9_19")
v21=$(fixture cudnn-windows-x86_64-9.21.0.10_cuda12-archive.zip --version 9.21.0.10 \
  --bin-dir bin --file "bin/cudnn64_9.dll=$STUB_CUDNN9_21")
run_cdm install "$(wpath "$v19")"
expect_rc 0 "9.19 installs (DLLs in bin\\x64)"
run_cdm install "$(wpath "$v21")"
expect_rc 0 "9.21 installs (DLLs in bin)"
P=$SCRATCH/project
mkdir -p "$P"
run_cdm link "$(wpath "$P")" 9.19.0.56
expect_rc 0 "the project links 9.19"
before=$(digest "$E")

# ---- PATH is not enough ------------------------------------------------------------------
WINEPATH=$(wpath "$P/cuda_link/bin/x64") load
check "with only PATH naming the project's bin\\x64, the module does not load (error 126)" \
  test "$RC $OUT" = "3 error 126"
WINEPATH=$(wpath "$P/cuda_link/bin/x64") load cudnn64_9.dll
check "nor does ctypes.WinDLL('cudnn64_9.dll')" test "$RC $OUT" = "3 error 126"

# ---- attach: the hook alone -------------------------------------------------------------
run_cdm attach "$(wpath "$E")" "$(wpath "$P")" --json
expect_rc 0 "attach an environment with no cuDNN of its own"
check "the hook is written, no file linked" \
  test "$(json 'd["hook"].endswith("Lib\\site-packages\\cdm-dll-dirs.pth"), d["files"], d["original"]')" = "(True, 0, None)"
check "the list names the project's link's bin\\x64" \
  test "$(tr -d '\r' <"$SP/cdm-dll-dirs.txt")" = "$(wpath "$P/cuda_link/bin/x64")"
load
check "the module loads the project's 9.19 through the hook" \
  sh -c 'printf "%s\n" "$2" | grep -qx "version 91900" && test "$1" = 0' _ "$RC" "$OUT"
check "from the project's link" sh -c 'printf "%s\n" "$1" | grep -qi "^from .*project.cuda_link.bin.x64.cudnn64_9.dll$"' _ "$OUT"
load cudnn64_9.dll
check "ctypes.WinDLL('cudnn64_9.dll') finds it too" sh -c 'printf "%s\n" "$1" | grep -qx "version 91900"' _ "$OUT"
run_cdm attach "$(wpath "$E")" "$(wpath "$P")" --json
check "attaching again changes nothing" test "$(json 'd["changed"]')" = False

# A real CPython runs the .pth line as site.py does (addpackage), with os.add_dll_directory
# recorded and the Windows paths seen through Wine's Z: drive.
check "CPython's site runs the .pth line: os.add_dll_directory of the project's bin\\x64 only, first on PATH once" \
  python3 - "$SP" "$(wpath "$P/cuda_link/bin/x64")" <<'EOF'
import os, site, sys
calls = []
os.add_dll_directory = calls.append
isdir = os.path.isdir
os.path.isdir = lambda d: isdir("/" + d[3:].replace("\\", "/") if d.startswith("Z:\\") else d)
os.environ["PATH"] = "C:\\Windows"
site.addpackage(sys.argv[1], "cdm-dll-dirs.pth", set())
site.addpackage(sys.argv[1], "cdm-dll-dirs.pth", set())  # a child Python: PATH has it
want_path = sys.argv[2] + ";C:\\Windows"
ok = calls == [sys.argv[2]] * 2 and os.environ["PATH"] == want_path
sys.exit(0 if ok else "calls: %r, PATH %r" % (calls, os.environ["PATH"]))
EOF
check "and does nothing where os.add_dll_directory is missing (not Windows)" \
  sh -c 'test -z "$(python3 -c "import site, sys; site.addpackage(sys.argv[1], \"cdm-dll-dirs.pth\", set())" "$1" 2>&1)"' _ "$SP"

# ---- a switch reaches it, across layouts ---------------------------------------------------
run_cdm link "$(wpath "$P")" 9.21.0.10
expect_rc 0 "the project switches to 9.21"
check "the list now names bin, where 9.21 keeps its DLLs" \
  test "$(tr -d '\r' <"$SP/cdm-dll-dirs.txt")" = "$(wpath "$P/cuda_link/bin")"
load
check "the module loads 9.21 without attaching again" sh -c 'printf "%s\n" "$1" | grep -qx "version 92100"' _ "$OUT"
run_cdm rollback "$(wpath "$P")"
expect_rc 0 "a rollback to 9.19"
load
check "and the module follows it back" sh -c 'printf "%s\n" "$1" | grep -qx "version 91900"' _ "$OUT"

# ---- detach ------------------------------------------------------------------------------
run_cdm detach "$(wpath "$E")"
expect_rc 0 "detach"
check "saying the hook went" sh -c 'printf "%s" "$1" | grep -q "hook is removed"' _ "$OUT$ERR"
load
check "after detach the module finds nothing of cdm's" test "$RC $OUT" = "3 error 126"
check "the environment is byte for byte as before" test "$(digest "$E")" = "$before"
check "no record is left" test "$(records)" = 0

# ---- cdm exec: Python programs get the DLL folder through cdm's sitecustomize.py -------------
PYTHONPATH='C:\mine' run_cdm exec "$(wpath "$P")" -- "$(wpath "$PYDIR/python.exe")" "$(wpath "$SP")" \
  "$(wpath "$SP/ctranslate2/_ext.pyd")"
expect_rc 0 "cdm exec runs the stand-in Python"
check "which loads the module with the project's 9.19 (no hook in the environment)" \
  sh -c 'printf "%s\n" "$1" | grep -qx "version 91900" && test ! -e "$2/cdm-dll-dirs.pth"' _ "$OUT" "$SP"
pp=$(printf '%s\n' "$OUT" | sed -n 's/^pythonpath //p')
check "PYTHONPATH: cdm's folder first, the one it had after" \
  sh -c 'case $1 in *"\\python;C:\\mine") exit 0 ;; esac; exit 1' _ "$pp"
cdm_py=$SCRATCH/state/python
check "cdm's folder holds its sitecustomize.py" test -f "$cdm_py/sitecustomize.py"
run_cdm exec "$(wpath "$P")" -- "$(wpath "$PYDIR/python.exe")" "$(wpath "$SP")" cudnn64_9.dll
check "ctypes.WinDLL('cudnn64_9.dll') under cdm exec finds the project's" \
  sh -c 'printf "%s\n" "$1" | grep -qx "version 91900"' _ "$OUT"
# A real CPython runs it (on Linux: os.add_dll_directory recorded), and the sitecustomize it
# hides (a folder later on PYTHONPATH) after it.
mkdir -p "$SCRATCH/theirs"
printf 'import os\nos.environ["THEIRS_RAN"] = "yes"\n' >"$SCRATCH/theirs/sitecustomize.py"
check "CPython: add_dll_directory for each existing folder (first on PATH), then the environment's own sitecustomize" \
  env PYTHONPATH="$cdm_py:$SCRATCH/theirs" CDM_DLL_DIRECTORIES="$P;$SCRATCH/absent" PATH="$PATH" python3 -S - "$P" "$SCRATCH/theirs" <<'EOF2'
import os, sys
calls = []
os.add_dll_directory = calls.append
import site
site.main()
mod = sys.modules["sitecustomize"].__file__
ok = calls == [sys.argv[1]] and os.environ.get("THEIRS_RAN") == "yes" and mod.startswith(sys.argv[2])
ok = ok and os.environ["PATH"].startswith(sys.argv[1] + ";")
sys.exit(0 if ok else "calls %r, theirs %r, sitecustomize %s" % (calls, os.environ.get("THEIRS_RAN"), mod))
EOF2
check "CPython without another sitecustomize: cdm's stays, nothing fails" \
  env PYTHONPATH="$cdm_py" CDM_DLL_DIRECTORIES="$P" python3 -S -c 'import os, site; os.add_dll_directory = lambda d: None; site.main()'

# ---- refusals: a link or a stranger's file where the hook goes ------------------------------
# a file symbolic link, as Windows makes it (Wine keeps its data in .REPARSE_POINT)
"$WINE" cmd /c mklink "$(wpath "$SP/cdm-dll-dirs.txt")" "$(wpath "$SCRATCH/elsewhere.txt")" >/dev/null 2>&1
run_cdm attach "$(wpath "$E")" "$(wpath "$P")"
expect_rc 1 "a link where the list goes is refused"
expect_err "cdm-dll-dirs.txt' is a link.*does not follow" "naming it"
check "nothing is written through it" test ! -e "$SCRATCH/elsewhere.txt"
check "nor recorded" test "$(records)" = 0
rm -rf "$SP/cdm-dll-dirs.txt" "$SP/.REPARSE_POINT"
printf 'import mine\n' >"$SP/cdm-dll-dirs.pth"
run_cdm attach "$(wpath "$E")" "$(wpath "$P")"
expect_rc 1 "a .pth of that name that is not cdm's is refused"
check "and left as it was" test "$(cat "$SP/cdm-dll-dirs.pth")" = "import mine"
rm "$SP/cdm-dll-dirs.pth"
check "the environment is as before the refusals" test "$(digest "$E")" = "$before"

# ---- a crash after the hook is written: the next command undoes the attach -------------------
CDM_CRASH_AT=attach-done run_cdm attach "$(wpath "$E")" "$(wpath "$P")"
expect_rc 137 "a crash at the end of the attach"
check "the hook was there" test -f "$SP/cdm-dll-dirs.pth"
run_cdm gc
expect_rc 0 "the next command repairs it"
check "the next command recovers: the hook is gone, the environment as before" \
  test "$(digest "$E")" = "$before"

"$WINE" "$CDM_EXE" attach "$(wpath "$E")" "$(wpath "$P")" >/dev/null 2>&1
CDM_CRASH_AT=detach-recorded run_cdm detach "$(wpath "$E")"
expect_rc 137 "a crash as the detach begins"
run_cdm gc
expect_rc 0 "the next command finishes the detach"
check "the hook is gone, the environment as before" test "$(digest "$E")" = "$before"
check "and no record is left" test "$(records)" = 0

# ---- an environment with the wheel: its files and the hook ----------------------------------
W=$SCRATCH/wheelenv
WS=$W/Lib/site-packages
mkdir -p "$WS/nvidia/cudnn/bin"
printf 'home = C:\\Python312\n' >"$W/pyvenv.cfg"
dists "$WS" nvidia_cudnn_cu12 9.19.0.56 ""
cp "$STUB_CUDNN9_19" "$WS/nvidia/cudnn/bin/cudnn64_9.dll"
wbefore=$(digest "$W")
run_cdm attach "$(wpath "$W")" "$(wpath "$P")" --json
expect_rc 0 "attach an environment with the nvidia-cudnn wheel"
check "its cudnn64_9.dll is linked and the hook written" \
  test "$(json 'd["files"], d["hook"] is not None')" = "(1, True)"
run_cdm detach "$(wpath "$W")"
expect_rc 0 "detach it"
check "byte for byte as before" test "$(digest "$W")" = "$wbefore"

# ---- the doctor: which cudnn64_9.dll each framework will load, and why -----------------------
D=$P/.venv
DS=$D/Lib/site-packages
mkdir -p "$DS/torch/lib" "$DS/ctranslate2" "$DS/onnxruntime/capi"
printf 'home = C:\\Python312\n' >"$D/pyvenv.cfg"
dists "$DS" torch 2.11.0 "" ctranslate2 4.5.0 "" onnxruntime_gpu 1.20.1 ""
cp "$STUB_CUDNN9_19" "$DS/torch/lib/cudnn64_9.dll"
cp "$STUB_CUDNN9_21" "$DS/onnxruntime/capi/cudnn64_9.dll"
dstatus() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
ddetail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
has() { case $1 in *"$2"*) return 0 ;; esac; diag "$1" "want: $2"; return 1; }
dbefore=$(digest "$D")
# not attached: torch and ONNX Runtime load copies of their own, CTranslate2 finds none
run_cdm doctor --json "$(wpath "$P")"
check "doctor, not attached: a warning" test "$(dstatus python.venv.dlls)" = warn
d1=$(ddetail python.venv.dlls)
check "torch: its own copy" has "$d1" "torch 2.11.0: '$(wpath "$DS/torch/lib/cudnn64_9.dll")', its own copy"
check "onnxruntime-gpu: its own copy" has "$d1" "onnxruntime_gpu 1.20.1: '$(wpath "$DS/onnxruntime/capi/cudnn64_9.dll")', its own copy"
check "ctranslate2: none (PATH does not count)" has "$d1" "ctranslate2 4.5.0: no cudnn64_9.dll in the folders it searches"
check "and the copies differ" has "$d1" "different copies"
run_cdm attach "$(wpath "$D")" "$(wpath "$P")" --json
expect_rc 0 "the project's .venv attaches"
check "torch\\lib file by file, and onnxruntime\\capi as one more folder, and the hook" \
  test "$(json 'd["folder"].endswith("torch\\lib"), d["more"], d["more_folders"].endswith("onnxruntime\\capi'"'"'"), d["files"], d["hook"] is not None')" = "(True, 1, True, 2, True)"
run_cdm doctor --json "$(wpath "$P")"
check "attached, every framework loads the project's: ok" test "$(dstatus python.venv.dlls)" = ok
d1=$(ddetail python.venv.dlls)
check "torch: the project's, through its own (linked) copy" has "$d1" "torch 2.11.0: '$(wpath "$DS/torch/lib/cudnn64_9.dll")', the project's through its own copy"
check "onnxruntime-gpu: the project's, through its own (linked) copy" has "$d1" "onnxruntime_gpu 1.20.1: '$(wpath "$DS/onnxruntime/capi/cudnn64_9.dll")', the project's through its own copy"
check "ctranslate2: the project's, through the hook" \
  sh -c 'printf "%s" "$1" | grep -qF "ctranslate2 4.5.0: '"'"'$2'"'"'" && printf "%s" "$1" | grep -q "the project.s through cdm.s DLL folders hook"' _ "$d1" "$(wpath "$P/cuda_link/bin/x64/cudnn64_9.dll")"
v20=$(fixture cudnn-windows-x86_64-9.20.0.48_cuda12-archive.zip --version 9.20.0.48 \
  --file "bin/x64/cudnn64_9.dll=$STUB_CUDNN9_21")
run_cdm install "$(wpath "$v20")"
run_cdm link "$(wpath "$P")" 9.20.0.48
expect_rc 0 "a switch to 9.20 (bin\\x64 as 9.19), with the environment attached in two folders"
run_cdm doctor --json "$(wpath "$P")"
check "after it every framework still loads the project's" test "$(dstatus python.venv.dlls)" = ok
run_cdm rollback "$(wpath "$P")"
run_cdm detach "$(wpath "$D")" --json
expect_rc 0 "detach"
check "gives both folders back" test "$(json 'd["more"]')" = 1
check "byte for byte" test "$(digest "$D")" = "$dbefore"
check "no record of it is left" test "$(records)" = 0
rm -rf "$D"

# ---- an embedded Python (ComfyUI's python_embeded): its ._pth decides ------------------------
M=$SCRATCH/python_embeded
mkdir -p "$M/Lib/site-packages"
printf 'python312.zip\n.\n../ComfyUI\n# Uncomment to run site.main() automatically\n#import site\n' >"$M/python312._pth"
run_cdm attach "$(wpath "$M")" "$(wpath "$P")"
expect_rc 0 "an embedded Python attaches"
expect_err "python312._pth' does not import site.*import site" "warning that its ._pth skips site"
run_cdm detach "$(wpath "$M")"
expect_rc 0 "and detaches"
check "leaving its site-packages empty" empty_dir "$M/Lib/site-packages"

done_testing
