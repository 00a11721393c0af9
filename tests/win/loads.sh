# What programs load, on Windows under Wine: cdm doctor -- CMD runs a mingw test program
# (tests/trace/child_win32.c) under the debug API while it loads the store's stand-in
# cudnn64_8.dll by path and a sub-library by name from another folder on PATH; and cdm
# attach on a Windows-style environment (Lib\site-packages\nvidia\cudnn\bin). Wine 8 makes
# no junctions, so no project can be linked here: the attach tests stop before the
# junction, saying so, and everything before it (reading the environment, the version
# check, refusing without a link, leaving the environment as it was) is checked.
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
skip "attach and detach through a junction to the project's bin folder" \
  "Wine 8 has no junctions (FSCTL_SET_REPARSE_POINT is unsupported), so no project link exists to attach to; see the README's Windows section"
run_cdm detach "$(wpath "$E")" --json
expect_rc 0 "detaching an environment that is not attached"
check "changes nothing" test "$(json 'd["changed"], d["folder"].endswith("nvidia\\cudnn\\bin")')" = "(False, True)"

# ---- the doctor on a project's .venv ------------------------------------------------------------
mv "$E" "$SCRATCH/old/.venv"
run_cdm doctor --json "$(wpath "$SCRATCH/old")"
check "the project's .venv loads the wheel's 9.19, not the pinned 9.1: a failure" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "load cuDNN 9.19.0.56 from .*nvidia.cudnn.bin"' _ "$(status python.venv)" "$(detail python.venv)"

done_testing
