# NVIDIA's real Windows cuDNN under Wine: the nvidia-cudnn-cu12 9.1.0.70 wheel for win_amd64
# (680 MB, fetched once into the wheel cache: ../cli/lib_real_cudnn.sh) repacked as the zip
# NVIDIA publishes (cudnn-windows-x86_64-9.1.0.70_cuda12-archive/{bin,include,lib/x64}),
# installed, verified and examined by cdm doctor: the PE imports of the real DLLs, what
# they load at run time instead (nvcuda.dll, cuBLASLt, NVRTC), and cudnnGetVersion through
# LoadLibraryExW in a child process, without and with the install's bin on PATH.
. "$TESTS_DIR/win/lib.sh"
. "$TESTS_DIR/cli/lib_real_cudnn.sh"

if ! whl=$(real_wheel win_amd64 2>"$SCRATCH/wheel.err"); then
  skip_tool "install, verify and doctor on NVIDIA's Windows DLLs" "$(tail -1 "$SCRATCH/wheel.err")"
  done_testing
  exit
fi
zip=$(python3 "$TESTS_DIR/win/pack_wheel_zip.py" "$whl" "$SCRATCH/archives") ||
  { not_ok "the wheel repacks as NVIDIA's Windows zip"; done_testing; exit; }
top=cudnn-windows-x86_64-9.1.0.70_cuda12-archive
check "the zip has NVIDIA's layout: 8 DLLs in bin, 7 headers, 16 import libraries in lib\\x64, LICENSE" \
  test "$(bsdtar -tf "$zip" | grep -c "^$top/bin/cudnn[a-z_]*64_9\.dll$") $(bsdtar -tf "$zip" | grep -c "^$top/include/cudnn[a-z_]*\.h$") $(bsdtar -tf "$zip" | grep -c "^$top/lib/x64/cudnn[a-z_0-9]*\.lib$") $(bsdtar -tf "$zip" | grep -c "^$top/LICENSE$")" = "8 7 16 1"

run_cdm install "$(wpath "$zip")" --json
expect_rc 0 "cdm.exe installs the real 9.1.0.70 zip"
check "as 9.1.0.70-cuda12, DLLs in bin, import libraries in lib\\x64" \
  test "$(json 'd["id"], d["cuda"]')" = "('9.1.0.70-cuda12', 12)"
dir=$CDM_ROOT_POSIX/9.1.0.70-cuda12
# The wheel's RECORD holds NVIDIA's own SHA-256 of every file: the store's copies match it.
check "every installed DLL, header and import library has the hash NVIDIA's RECORD gives" \
  python3 - "$whl" "$dir" <<'EOF'
import base64, hashlib, os, re, sys, zipfile
whl, root = sys.argv[1:]
record = [n for n in zipfile.ZipFile(whl).namelist() if n.endswith(".dist-info/RECORD")][0]
checked = 0
for line in zipfile.ZipFile(whl).read(record).decode().splitlines():
    name, digest = line.split(",")[:2]
    m = re.fullmatch(r"nvidia/cudnn/((bin|include|lib/x64)/[^/]+\.(dll|h|lib))", name)
    if not m:
        continue
    h = hashlib.sha256()
    with open(os.path.join(root, m.group(1)), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    want = digest.split("=", 1)[1]
    got = base64.urlsafe_b64encode(h.digest()).decode().rstrip("=")
    if got != want:
        sys.exit("%s: %s, RECORD says %s" % (m.group(1), got, want))
    checked += 1
sys.exit(0 if checked == 31 else "%d files checked, not 31" % checked)
EOF

run_cdm verify 9.1 --json
expect_rc 0 "verify reads the gigabyte of DLLs back against the record"
run_cdm verify 9.1
check "verify: the 32 files as installed" sh -c 'printf "%s\n%s" "$1" "$2" | grep -q "32 file(s): all as installed"' _ "$OUT" "$ERR"

status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
fixtext() { json "[c['fix'] for c in d['checks'] if c['name'] == '$1'][0]"; }
has() { case $2 in *"$3"*) return 0 ;; esac; diag "$1: $2" "want: $3"; return 1; }
bin="$CDM_ROOT\\9.1.0.70-cuda12\\bin"

# ---- not activated: the install's bin is not on PATH --------------------------------------
run_cdm doctor --cudnn 9.1.0 --json
check "doctor answers with a report" test -n "$OUT"
check "cudnn64_9.dll loads through LoadLibraryExW by its path" \
  has library.load "$(status library.load) $(detail library.load)" "ok loaded '$bin\\cudnn64_9.dll'"
# cudnn64_9.dll opens cudnn_graph64_9.dll by name when asked its version; Windows looks on
# PATH, not beside it, so the real library says so and ends its process (MSVC's abort is a
# fail-fast, 0xC0000409). The probe ran in a child cdm.exe: the doctor goes on.
version=$(detail library.version)
check "cudnnGetVersion ending its process is a failed check naming the exit and the step" \
  has library.version "$(status library.version) $version" "fail '$bin\\cudnn64_9.dll' crashed the process with exception 0xC0000409 (a fail-fast exit (abort or a stack buffer overrun)) in cudnnGetVersion, asked in a child process"
check "with the library's own words: the sub-library it could not find" \
  has library.version "$version" "it wrote: 'Could not locate cudnn_graph64_9.dll. Please make sure it is in your library path!"
check "the fix says to put the install's bin on PATH by activating the project" \
  has library.version "$(fixtext library.version)" "Windows looks for them on PATH, not beside it: activate the project"
check "the steps after it were not asked" \
  test "$(status library.cudart) $(status library.handle)" = "skip skip"
check "and the report goes on to the import tables" test "$(status deps.cudnn64_9.dll)" = ok
expect_rc 1 "the doctor exits 1"

# The import tables, as the real DLLs have them: KERNEL32 and cuDNN's own DLLs only; the
# driver (nvcuda.dll), cuBLASLt and NVRTC are loaded at run time, so no import names them.
objdump=${OBJDUMP:-$(command -v x86_64-w64-mingw32-objdump || true)}
for f in "$dir"/bin/*.dll; do
  name=$(basename "$f")
  d_=$(detail "deps.$name")
  if [ -n "$objdump" ]; then
    want=$("$objdump" -p "$f" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort | tr '\n' ' ')
    got=$(printf '%s' "$d_" | sed 's/^[0-9]* import(s), all found: //; s/ ([^)]*)//g; s/, /\n/g' | sort | tr '\n' ' ')
    check "deps.$name: every import found, the same list objdump reads ($want)" \
      sh -c 'test "$1" = ok && test "$2" = "$3"' _ "$(status "deps.$name")" "$got" "$want"
  else
    check "deps.$name: every import found" test "$(status "deps.$name")" = ok
  fi
done
check "no import table names nvcuda.dll" \
  sh -c '! printf "%s" "$1" | grep -qi nvcuda' _ "$(json '[c["detail"] for c in d["checks"] if c["name"].startswith("deps.")]')"
check "yet the DLLs name nvcuda.dll inside: the driver is loaded at run time" \
  grep -qa 'nvcuda\.dll' "$dir/bin/cudnn_graph64_9.dll"
check "the driver check says none is found" \
  has driver "$(status driver) $(detail driver)" "warn no NVIDIA driver found"
check "what cuDNN 9 loads at run time is named: cuBLASLt and NVRTC of CUDA 12" \
  has deps.runtime "$(status deps.runtime) $(detail deps.runtime)" "the loader would not find cublasLt64_12.dll, nvrtc64_120_0.dll"
diag "the report, not activated:"
run_cdm doctor --cudnn 9.1.0
diag "$OUT" "$ERR"

# ---- activated: the install's bin on PATH (Wine puts WINEPATH on the programs' PATH) -----
WINEPATH=$bin run_cdm doctor --cudnn 9.1.0 --json
check "with bin on PATH the real cudnnGetVersion answers 90100, as installed" \
  has library.version "$(status library.version) $(detail library.version)" "ok cudnnGetVersion() = 90100 (9.1.0), as installed (9.1.0.70)"
check "cudnnGetCudartVersion: built with CUDA 12.4" \
  has library.cudart "$(status library.cudart) $(detail library.cudart)" "ok cudnnGetCudartVersion() = 12040: built with CUDA 12.4"
check "cudnnCreate without a driver: CUDNN_STATUS_NOT_INITIALIZED, a warning" \
  has library.handle "$(status library.handle) $(detail library.handle)" "warn no GPU here (no NVIDIA driver found): cudnnCreate() returned CUDNN_STATUS_NOT_INITIALIZED (1001)"
check "every sub-library cuDNN opens by name comes from the install" \
  test "$(json 'sorted(set(c["status"] for c in d["checks"] if c["name"].startswith("same.")))')" = "['ok']"
check "no check fails" test "$RC" -eq 0 -a "$(json 'd["ok"]')" = True
diag "the report, with bin on PATH:"
WINEPATH=$bin run_cdm doctor --cudnn 9.1.0
diag "$OUT" "$ERR"

# ---- a Windows-shaped Python environment with the real DLLs: attach, the hook, the doctor ----
# A project's .venv with the nvidia-cudnn wheel's real DLLs, ONNX Runtime, and CTranslate2
# holding copies of its own (as faster-whisper's guides advise). A stand-in Python
# (tests/win/py_loader.c) loads cudnn64_9.dll by name, as ctypes and CTranslate2's module do,
# and calls the real cudnnGetVersion, which opens cudnn_graph64_9.dll by name itself.
real_env() {
  if ! junctions_work; then
    skip "the real DLLs through an attached environment" "junctions cannot be made here (stock Wine 8)"
    return
  fi
  if [ -z "${PY_LOADER-}" ]; then
    skip_tool "the real DLLs through an attached environment" "no stand-in Python (no dlltool)"
    return
  fi
  local RP=$SCRATCH/realproj RS before py=$SCRATCH/python routes
  RS=$RP/.venv/Lib/site-packages
  mkdir -p "$RS/onnxruntime/capi" "$RS/ctranslate2" "$RS/nvidia/cudnn/bin" "$py"
  cp "$PY_LOADER" "$py/python.exe"
  printf 'home = C:\\Python312\n' >"$RP/.venv/pyvenv.cfg"
  dists "$RS" onnxruntime_gpu 1.20.1 "" ctranslate2 4.5.0 "" nvidia_cudnn_cu12 9.1.0.70 ""
  python3 -c '
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for name in ("cudnn64_9.dll", "cudnn_graph64_9.dll"):
    data = z.read("nvidia/cudnn/bin/" + name)
    for folder in ("nvidia/cudnn/bin", "ctranslate2"):
        open(os.path.join(sys.argv[2], folder, name), "wb").write(data)
' "$whl" "$RS"
  before=$(cd "$RP/.venv" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  run_cdm link "$(wpath "$RP")" 9.1.0.70
  expect_rc 0 "a project linked to the real 9.1.0.70"
  "$WINE" "$py/python.exe" "$(wpath "$RS")" cudnn64_9.dll >"$SCRATCH/py.out" 2>&1
  check "not attached, the stand-in Python finds no cudnn64_9.dll by name" \
    grep -q "^error 126" "$SCRATCH/py.out"
  run_cdm attach "$(wpath "$RP/.venv")" "$(wpath "$RP")" --json
  expect_rc 0 "attach the environment"
  check "CTranslate2's own copies and the wheel's are linked file by file, and the hook written" \
    test "$(json 'd["folder"].endswith("ctranslate2"), d["more_folders"].endswith("nvidia\\cudnn\\bin'"'"'"), d["files"], d["hook"] is not None')" = "(True, True, 4, True)"
  "$WINE" "$py/python.exe" "$(wpath "$RS")" cudnn64_9.dll >"$SCRATCH/py.out" 2>&1
  check "through the hook the real cudnnGetVersion answers 90100, its sub-library found on PATH" \
    grep -qx "version 90100" <(tr -d '\r' <"$SCRATCH/py.out")
  run_cdm doctor --json "$(wpath "$RP")"
  routes=$(detail python.venv.dlls)
  check "doctor: ONNX Runtime through the hook, CTranslate2 through its linked copy, both the project's" \
    sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q "onnxruntime_gpu 1.20.1: .*the project.s through cdm.s DLL folders hook.*ctranslate2 4.5.0: .*the project.s through its own copy"' _ "$(status python.venv.dlls)" "$routes"
  [ "$(status python.venv.dlls)" = ok ] || diag "$routes"
  run_cdm detach "$(wpath "$RP/.venv")"
  expect_rc 0 "detach"
  check "the environment's files are byte for byte as before" \
    test "$(cd "$RP/.venv" && find . -type f -print0 | sort -z | xargs -0 sha256sum)" = "$before"
}
real_env

# ---- a Windows torch environment: its cuDNN named by the DLL's version resource -------------
# torch's Windows wheels name no nvidia-cudnn wheel: the cuDNN of the build is the one in
# torch\lib, whose FileVersion says 9.1.0.70. A project pinned to an older 9.0 fails the
# doctor's torch rule and is refused by attach; 9.1 itself passes. (A pin file: no link is
# needed for either, so both Wines run it.)
real_torch() {
  local TP=$SCRATCH/torchproj TS
  TS=$TP/.venv/Lib/site-packages
  mkdir -p "$TS/torch/lib"
  printf 'home = C:\\Python312\n' >"$TP/.venv/pyvenv.cfg"
  dists "$TS" torch 2.5.1+cu124 ""
  # its RECORD lists the DLL, as a real torch's does: the wheel owns it, its version is not cuDNN's
  printf 'torch/lib/cudnn64_9.dll,,\ntorch-2.5.1+cu124.dist-info/METADATA,,\n' \
    >"$TS/torch-2.5.1+cu124.dist-info/RECORD"
  python3 -c '
import sys, zipfile
data = zipfile.ZipFile(sys.argv[1]).read("nvidia/cudnn/bin/cudnn64_9.dll")
open(sys.argv[2], "wb").write(data)
' "$whl" "$TS/torch/lib/cudnn64_9.dll"
  run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.0.0.312_cuda12-archive.zip)")"
  expect_rc 0 "an older 9.0 installs beside the real 9.1"
  echo 9.0.0.312-cuda12 >"$TP/.cudnn-version"
  run_cdm doctor --json "$(wpath "$TP")"
  check "doctor: torch loads cuDNN 9.1.0.70 (its DLL's FileVersion, not torch's 2.5.1) from torch\\lib" \
    has python.venv "$(detail python.venv)" "load cuDNN 9.1.0.70 from '$(wpath "$TS/torch/lib")' (before any folder on PATH)"
  check "and its rule fails 9.0: built with 9.1 (from the DLL), 9.0 is older" \
    has python.venv.torch "$(status python.venv.torch) $(detail python.venv.torch)" "fail torch 2.5.1+cu124 in '$(wpath "$TP/.venv")': torch 2.5.1+cu124 was built with cuDNN 9.1 and 9.0.0.312-cuda12 is older"
  run_cdm attach "$(wpath "$TP/.venv")" "$(wpath "$TP")"
  expect_rc 1 "attach refuses 9.0 for that torch"
  expect_err "built with cuDNN 9.1 and 9.0.0.312-cuda12 is older" "naming the DLL's version"
  echo 9.1.0.70-cuda12 >"$TP/.cudnn-version"
  run_cdm doctor --json "$(wpath "$TP")"
  check "pinned to the real 9.1, the torch rule passes" test "$(status python.venv.torch)" = ok
}
real_torch

done_testing
