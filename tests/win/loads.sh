# What programs load, on Windows under Wine: cdm doctor -- CMD runs a mingw test program
# (tests/trace/child_win32.c) under the debug API while it loads the store's stand-in
# cudnn64_8.dll by path and a sub-library by name from another folder on PATH; and cdm
# attach on a Windows-style environment (Lib\site-packages\nvidia\cudnn\bin): reading the
# environment, the version check, refusing without a link, leaving the environment as it
# was; and, where junctions can be made, the per-file attach of torch\lib to a linked
# project, a switch and detach.
. "$TESTS_DIR/win/lib.sh"

status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
digest() { (cd "$1" && find . -printf '%y %p %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# ---- cdm doctor -- CMD through the debug API -----------------------------------------------
win88=$(fixture_win88)
run_cdm install "$(wpath "$win88")"
expect_rc 0 "the 8.8.0 zip with stand-in DLLs installs"
store_bin="$CDM_ROOT\\8.8.0.121-cuda11\\bin"
other=$SCRATCH/other
mkdir -p "$other"
cp "$STUB_CUDNN_SUB" "$other/cudnn_ops_infer64_8.dll"
# Wine puts WINEPATH first on the programs' PATH
WINEPATH=$(wpath "$other") run_cdm doctor --cudnn 8.8.0 --json -- "$(wpath "$TRACE_CHILD")" \
  "path:$store_bin\\cudnn64_8.dll" name:cudnn_ops_infer64_8.dll exit:5
expect_rc 1 "doctor -- a program mixing the store's cudnn64_8.dll with another folder's sub-library"
check "the command's exit status comes back" test "$(json 'd["command"]["exit"]')" = 5
check "cudnn64_8.dll is reported from the store's install" \
  test "$(json '[l["install"] for l in d["loaded"] if l["path"].lower().endswith("\\cudnn64_8.dll")]')" = "['8.8.0.121-cuda11']"
check "cudnn_ops_infer64_8.dll from the other folder, outside the store, found on PATH" \
  test "$(json '[(l["install"], "is on PATH" in l["why"]) for l in d["loaded"] if l["path"].lower().endswith("cudnn_ops_infer64_8.dll")]')" = "[(None, True)]"
check "run.cudnn fails naming both folders" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "from 2 folders"' _ "$(status run.cudnn)" "$(detail run.cudnn)"
check "without a project the command ran in the environment as it is (no junction under Wine)" \
  test "$(status run.environment)" = warn

# attach_torch_lib: a Windows torch environment (torch\lib\cudnn*.dll beside torch's other
# DLLs) attached to a linked project, file by file: each cuDNN DLL becomes a link (a hard
# link on Windows) to the project's file, the other DLLs stay; a switch of the project
# reaches the environment; detach gives it back byte for byte. Needs junctions.
attach_torch_lib() {
  if ! junctions_work; then
    skip "attach and detach of torch\\lib through a linked project" \
      "junctions cannot be made here (stock Wine 8), so no project link exists to attach to"
    return
  fi
  local tenv=$SCRATCH/torchenv lib proj=$SCRATCH/linked f store_new store_old tbefore others
  lib=$tenv/Lib/site-packages/torch/lib
  mkdir -p "$lib" "$tenv/Lib/site-packages/torch-2.11.0.dist-info" "$proj"
  printf 'home = C:\\Python312\n' >"$tenv/pyvenv.cfg"
  printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n' \
    >"$tenv/Lib/site-packages/torch-2.11.0.dist-info/METADATA"
  cp "$STUB_CUDNN8" "$lib/cudnn64_9.dll"
  cp "$STUB_CUDNN_SUB" "$lib/cudnn_graph64_9.dll"
  cp "$STUB_CUDNN_SUB" "$lib/cudnn_ops64_9.dll"
  printf 'torch' >"$lib/torch_cpu.dll"
  printf 'c10' >"$lib/c10.dll"
  printf 'cuda runtime' >"$lib/cudart64_12.dll"
  tbefore=$(digest "$tenv")
  others=$(cd "$lib" && sha256sum torch_cpu.dll c10.dll cudart64_12.dll | sha256sum)
  run_cdm link "$(wpath "$proj")" 9.21.0.10
  expect_rc 0 "a project linked to 9.21 through a junction"
  run_cdm attach "$(wpath "$tenv")" "$(wpath "$proj")"
  expect_rc 0 "torch\\lib is attached to it"
  store_new=$(ls -d "$CDM_ROOT_POSIX"/9.21.0.10*)
  same_file() { test "$(stat -L -c %d:%i "$1")" = "$(stat -L -c %d:%i "$2")"; }
  for f in cudnn64_9.dll cudnn_graph64_9.dll cudnn_ops64_9.dll; do
    check "torch\\lib\\$f is a link to the project's file" \
      same_file "$lib/$f" "$(find "$store_new" -name "$f" | head -1)"
  done
  check "torch's other DLLs are untouched" \
    test "$(cd "$lib" && sha256sum torch_cpu.dll c10.dll cudart64_12.dll | sha256sum)" = "$others"
  # 9.19 keeps its DLLs in bin\x64 as 9.21 does (a switch to 9.1's bin is not followed yet)
  "$WINE" "$CDM_EXE" install "$(wpath "$(fixture cudnn-windows-x86_64-9.19.0.56_cuda12-archive.zip --version 9.19.0.56)")" >/dev/null 2>&1
  run_cdm link "$(wpath "$proj")" 9.19.0.56
  expect_rc 0 "the project switches to 9.19"
  store_old=$(ls -d "$CDM_ROOT_POSIX"/9.19.0.56*)
  check "and the environment's hard links follow it" \
    same_file "$lib/cudnn64_9.dll" "$(find "$store_old" -name cudnn64_9.dll | head -1)"
  run_cdm rollback "$(wpath "$proj")"
  expect_rc 0 "a rollback to 9.21"
  check "and the environment follows it back" \
    same_file "$lib/cudnn_ops64_9.dll" "$(find "$store_new" -name cudnn_ops64_9.dll | head -1)"
  check "leaving nothing beside its files" test -z "$(ls "$lib" | grep -v '\.dll$')"
  run_cdm detach "$(wpath "$tenv")"
  expect_rc 0 "detach"
  check "gives torch\\lib back byte for byte" test "$(digest "$tenv")" = "$tbefore"
}

# ---- attach: a Windows-style environment ---------------------------------------------------
E=$SCRATCH/env
SP=$E/Lib/site-packages
mkdir -p "$SP/nvidia/cudnn/bin" "$SP/nvidia_cudnn_cu12-9.19.0.56.dist-info" "$SP/torch-2.11.0.dist-info"
printf 'home = C:\\Python312\ninclude-system-site-packages = false\n' >"$E/pyvenv.cfg"
cp "$STUB_CUDNN8" "$SP/nvidia/cudnn/bin/cudnn64_9.dll"
cp "$STUB_CUDNN_SUB" "$SP/nvidia/cudnn/bin/cudnn_graph64_9.dll"
printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu12\nVersion: 9.19.0.56\n' \
  >"$SP/nvidia_cudnn_cu12-9.19.0.56.dist-info/METADATA"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\nRequires-Dist: nvidia-cudnn-cu12==9.19.0.56; platform_system == "Windows"\n' \
  >"$SP/torch-2.11.0.dist-info/METADATA"
before=$(digest "$E")
for v in 9.1.0.70 9.21.0.10; do
  run_cdm install "$(wpath "$(fixture "cudnn-windows-x86_64-${v}_cuda12-archive.zip" --version "$v")")"
done
# No junctions under Wine: the projects have a pin file and no link.
mkdir -p "$SCRATCH/old" "$SCRATCH/new"
echo 9.1.0.70-cuda12 >"$SCRATCH/old/.cudnn-version"
echo 9.21.0.10-cuda12 >"$SCRATCH/new/.cudnn-version"
run_cdm attach "$(wpath "$E")" "$(wpath "$SCRATCH/old")"
expect_rc 1 "attaching 9.1 under torch built with 9.19 is refused"
expect_err "torch 2.11.0 was built with cuDNN 9.19 and 9.1.0.70-cuda12 is older .*--force" \
  "naming torch's pin, read from Lib\\\\site-packages"
run_cdm attach "$(wpath "$E")" "$(wpath "$SCRATCH/new")"
expect_rc 1 "9.21 passes the check, and the attach stops for want of the project's link"
expect_err "cannot attach .*has no 'cuda_link' link; run 'cdm link" "saying so"
check "the environment is as it was" test "$(digest "$E")" = "$before"
check "and nothing is recorded" \
  test "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM attachments").fetchone()[0])' "$STATE_DB")" = 0
attach_torch_lib
run_cdm detach "$(wpath "$E")" --json
expect_rc 0 "detaching an environment that is not attached"
check "changes nothing" test "$(json 'd["changed"], d["folder"].endswith("nvidia\\cudnn\\bin")')" = "(False, True)"

# ---- the doctor on a project's .venv ------------------------------------------------------------
mv "$E" "$SCRATCH/old/.venv"
run_cdm doctor --json "$(wpath "$SCRATCH/old")"
check "the project's .venv loads the wheel's 9.19, not the pinned 9.1: a failure" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "load cuDNN 9.19.0.56 from .*nvidia.cudnn.bin"' _ "$(status python.venv)" "$(detail python.venv)"

done_testing
