# What a program really loads, on stand-in cuDNN libraries built here with the real
# sonames: the same-install rule (a sub-library missing from the install, found elsewhere or
# nowhere), `cdm doctor -- CMD` on Python scripts that mix two folders through ctypes (by
# path and by name, in a child process too), and the doctor's view of a project's virtual
# environment before and after `cdm attach`, and of a conda environment.
. "$TESTS_DIR/cli/lib.sh" || exit 1

need_stub_tools "what programs load"
unset CUDA_HOME CONDA_PREFIX VIRTUAL_ENV
export LD_LIBRARY_PATH=""
W=$SCRATCH/work
mkdir -p "$W"
# A CUDA 12.4 toolkit and no driver, so that only what is under test can fail.
export CUDA_PATH=$SCRATCH/cuda
mkdir -p "$CUDA_PATH" "$SCRATCH/nodriver"
printf '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}\n' >"$CUDA_PATH/version.json"
export CDM_DRIVER_LIB_PATH=$SCRATCH/nodriver

. "$TESTS_DIR/cli/lib_stub_cudnn.sh" || exit 1
status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
fixtext() { json "[c['fix'] for c in d['checks'] if c['name'] == '$1'][0]"; }

install 9.1.0.70 12 90100 || not_ok "stand-in 9.1.0.70 installs"
install 9.2.0.82 12 90200 ops || not_ok "stand-in 9.2.0.82 without libcudnn_ops installs"
install 8.9.5.30 12 8905 adv_train || not_ok "stand-in 8.9.5.30 without libcudnn_adv_train installs"
A=$CDM_ROOT/9.1.0.70-cuda12/lib
O=$SCRATCH/other # a second cuDNN outside the store, 9.0.0
tree "$O" 9.0.0 90000
for p in pa pm p8; do mkdir -p "$SCRATCH/$p"; done
"$CDM" link "$SCRATCH/pa" 9.1 >/dev/null
"$CDM" link "$SCRATCH/pm" 9.2 >/dev/null
"$CDM" link "$SCRATCH/p8" 8.9 >/dev/null

# ---- the same-install rule -------------------------------------------------------------------
cd "$SCRATCH/pa" || exit 1
run_cdm doctor --json
check "a complete install: every sub-library resolves inside it" \
  test "$(json 'sorted(set(c["status"] for c in d["checks"] if c["name"].startswith("same.")))')" = "['ok']"
check "the list comes with the version facts: graph, ops, cnn, adv, heuristic, engines" \
  test "$(json 'len([c for c in d["checks"] if c["name"].startswith("same.")])')" -eq 7
expect_rc 0 "and the doctor passes"

LD_LIBRARY_PATH=$O/lib run_cdm doctor --json "$SCRATCH/pm"
expect_rc 1 "an install missing libcudnn_ops.so.9 fails, with another cuDNN on LD_LIBRARY_PATH"
check "same.libcudnn_ops.so.9 names the outside copy, its version and why it is taken" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "takes .$3/lib/libcudnn_ops.so.9. (cuDNN 9.0.0) via LD_LIBRARY_PATH: outside the install .*which has no such file"' _ "$(status same.libcudnn_ops.so.9)" "$(detail same.libcudnn_ops.so.9)" "$O"
check "and who needs it: the main library by name, libcudnn_cnn by import" \
  sh -c 'printf "%s" "$1" | grep -q "libcudnn.so.9 opens libcudnn_ops.so.9 by name; libcudnn_cnn.so.9 imports it too"' _ "$(detail same.libcudnn_ops.so.9)"
check "the fix says the install lacks it" sh -c 'printf "%s" "$1" | grep -q "the install has no libcudnn_ops.so.9"' _ "$(fixtext same.libcudnn_ops.so.9)"
check "the other sub-libraries are fine" test "$(status same.libcudnn_graph.so.9)" = ok

# cuDNN 9's main library asks for the fully versioned name first (libcudnn_graph.so.9.1.0):
# a file of that name elsewhere beats the install, which has only libcudnn_graph.so.9.
mkdir -p "$SCRATCH/versioned"
cp "$O/lib/libcudnn_graph.so.9" "$SCRATCH/versioned/libcudnn_graph.so.9.1.0"
LD_LIBRARY_PATH=$SCRATCH/versioned run_cdm doctor --json "$SCRATCH/pa"
expect_rc 1 "a libcudnn_graph.so.9.1.0 outside the install, found first, fails"
check "same.libcudnn_graph.so.9.1.0 names it" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "opens libcudnn_graph.so.9.1.0 by name, and the loader takes .$3/libcudnn_graph.so.9.1.0."' _ "$(status same.libcudnn_graph.so.9.1.0)" "$(detail same.libcudnn_graph.so.9.1.0)" "$SCRATCH/versioned"

run_cdm doctor --json "$SCRATCH/p8"
expect_rc 1 "a cuDNN 8 install missing libcudnn_adv_train.so.8 fails"
check "it is found nowhere" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "libcudnn.so.8 opens libcudnn_adv_train.so.8 by name, and the loader finds it nowhere (the install has no such file)"' _ "$(status same.libcudnn_adv_train.so.8)" "$(detail same.libcudnn_adv_train.so.8)"
check "cuDNN 8's six infer and train sub-libraries are the list" \
  test "$(json 'sorted(c["name"] for c in d["checks"] if c["name"].startswith("same."))')" = "['same.libcudnn_adv_infer.so.8', 'same.libcudnn_adv_train.so.8', 'same.libcudnn_cnn_infer.so.8', 'same.libcudnn_cnn_train.so.8', 'same.libcudnn_ops_infer.so.8', 'same.libcudnn_ops_train.so.8']"

# ---- cdm doctor -- CMD ------------------------------------------------------------------------
cat >"$W/mix.py" <<'PY'
# libcudnn.so.9 by its path from one folder, a sub-library by name (LD_LIBRARY_PATH), and
# in a child process one more by path; prints to stdout; exits with argv[2].
import ctypes, subprocess, sys
other = sys.argv[1]
ctypes.CDLL(other + "/lib/libcudnn.so.9")
ctypes.CDLL("libcudnn_graph.so.9")
print("hello from the command")
subprocess.run([sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", other + "/lib/libcudnn_adv.so.9"], check=True)
sys.exit(int(sys.argv[2]))
PY
run_cdm doctor --json -- "$PY" "$W/mix.py" "$O" 0
expect_rc 1 "doctor -- python3 mix.py: libcudnn.so.9 by path from one folder, a sub-library by name from the project"
check "--json has the command: argv and exit status" \
  test "$(json 'd["command"]["argv"][1:], d["command"]["exit"]')" = "(['$W/mix.py', '$O', '0'], 0)"
check "--json has loaded: path, real_path, install, version" \
  test "$(json 'all({"path", "real_path", "install", "version"} <= set(l) for l in d["loaded"]), len(d["loaded"])')" = "(True, 3)"
check "libcudnn.so.9 from the other folder, opened by its path, 9.0.0, outside the store" \
  test "$(json '[(l["install"], l["version"], "opened it by its path" in l["why"]) for l in d["loaded"] if l["path"] == "'"$O"'/lib/libcudnn.so.9"][0]')" = "(None, '9.0.0', True)"
check "libcudnn_graph.so.9 from the project's install, through activation's LD_LIBRARY_PATH" \
  test "$(json '[(l["install"], l["real_path"], "put there by activation" in l["why"]) for l in d["loaded"] if l["path"].endswith("libcudnn_graph.so.9")][0]')" = "('9.1.0.70-cuda12', '$A/libcudnn_graph.so.9', True)"
check "the child process's load is reported too" \
  test "$(json 'len(set(l["pid"] for l in d["loaded"]))')" -eq 2
check "run.cudnn fails naming both folders and both versions" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "from 2 folders: .$3/lib. (cuDNN 9.0.0, outside the store) and .$4. (cuDNN 9.1.0.70, the store.s 9.1.0.70-cuda12); two versions in one process; outside the project.s install 9.1.0.70-cuda12"' _ "$(status run.cudnn)" "$(detail run.cudnn)" "$O" "$A"
check "the command's stdout went to stderr: stdout is the JSON alone" \
  sh -c 'printf "%s" "$1" | grep -q "hello from the command"' _ "$ERR"
check "run.environment says the project was activated" test "$(status run.environment)" = ok

run_cdm doctor -- "$PY" "$W/mix.py" "$O" 3
expect_rc 1 "the text form fails too"
check "it lists each library with why it was loaded" \
  sh -c 'printf "%s" "$1" | grep -q "why: .*opened it by its path" && printf "%s" "$1" | grep -q "loaded by the command (exit status 3)"' _ "$OUT"
check "and the command's own output" sh -c 'printf "%s" "$1" | grep -q "hello from the command"' _ "$OUT"

cat >"$W/clean.py" <<'PY'
import ctypes
lib = ctypes.CDLL("libcudnn.so.9")
print("cudnnGetVersion", lib.cudnnGetVersion())
ctypes.CDLL("libcudnn_graph.so.9")
ctypes.CDLL("libcudnn_ops.so.9")
PY
run_cdm doctor --json -- "$PY" "$W/clean.py"
expect_rc 1 "a program that loads the project's cuDNN but no CUDA driver fails"
check "run.gpu: it ran without the GPU, no CUDA driver loaded" \
  test "$(status run.gpu)|$(detail run.gpu)" = "fail|ran without the GPU: it loaded no CUDA driver"
run_cdm doctor --json --allow-cpu -- "$PY" "$W/clean.py"
expect_rc 0 "with --allow-cpu a program that takes every cuDNN library from the project passes"
check "run.gpu is then a warning" test "$(status run.gpu)" = warn
check "run.cudnn: all from the project's folder" \
  sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q "3 cuDNN libraries, all from .$3."' _ "$(status run.cudnn)" "$(detail run.cudnn)" "$A"
check "run.command reports status 0" test "$(status run.command)" = ok
# stand-ins for the CUDA driver and for ONNX Runtime built without its CUDA provider
mkdir -p "$SCRATCH/gpu"
printf 'int cuInit(unsigned f) { (void)f; return 100; }\n' >"$SCRATCH/gpu/cuda.c"
"${CC:-cc}" -shared -fPIC -o "$SCRATCH/gpu/libcuda.so.1" "$SCRATCH/gpu/cuda.c"
"${CC:-cc}" -shared -fPIC -o "$SCRATCH/gpu/libonnxruntime.so.1.20.1" "$SCRATCH/gpu/cuda.c"
cat >"$W/gpu.py" <<'PY'
import ctypes, sys
ctypes.CDLL("libcudnn.so.9")
ctypes.CDLL(sys.argv[1] + "/libcuda.so.1")
PY
run_cdm doctor --json -- "$PY" "$W/gpu.py" "$SCRATCH/gpu"
check "a program that loads cuDNN and the CUDA driver passes run.gpu" test "$(status run.gpu)" = ok
printf 'import ctypes, sys\nctypes.CDLL(sys.argv[1] + "/libonnxruntime.so.1.20.1")\n' >"$W/ort.py"
run_cdm doctor --json -- "$PY" "$W/ort.py" "$SCRATCH/gpu"
expect_rc 1 "ONNX Runtime loaded without its CUDA provider fails the doctor"
check "run.gpu names it as what ran instead" \
  test "$(detail run.gpu)" = "ran without the GPU: it loaded no cuDNN library and no CUDA driver; instead: ONNX Runtime without its CUDA provider (it falls back to the CPU provider)"
run_cdm exec --check -- "$PY" "$W/ort.py" "$SCRATCH/gpu"
expect_rc 3 "exec --check: the same run exits 3"
expect_err "ran without the GPU: it loaded no cuDNN library and no CUDA driver; instead: ONNX Runtime without its CUDA provider" "saying so"
run_cdm exec --check -- "$PY" "$W/gpu.py" "$SCRATCH/gpu"
expect_rc 0 "exec --check of a run on cuDNN and the driver exits 0"
run_cdm exec --check -- "$PY" -c 'import sys; sys.exit(5)'
expect_rc 5 "exec --check keeps the command's own failing status"
run_cdm doctor --json -- "$PY" -c 'import sys; sys.exit(4)'
check "a command that loads no cuDNN: exit status 4 reported, a warning each" \
  test "$(json 'd["command"]["exit"], [c["status"] for c in d["checks"] if c["name"] in ("run.command", "run.cudnn")]')" = "(4, ['warn', 'warn'])"
run_cdm doctor --json -- cdm-no-such-program
expect_rc 1 "a command that is not there fails"
check "run.command names it" sh -c 'printf "%s" "$1" | grep -q "cannot run .cdm-no-such-program.: no such program on PATH"' _ "$(detail run.command)"
check "and --json still says what was asked" test "$(json 'd["command"]')" = "{'argv': ['cdm-no-such-program'], 'exit': None, 'signal': None}"
run_cdm doctor --
expect_rc 2 "'--' without a command is a usage error"

# ---- Python environments -----------------------------------------------------------------------
if python3 -m venv --without-pip "$SCRATCH/pa/.venv" >/dev/null 2>&1; then
  V=$SCRATCH/pa/.venv
  SP=$(echo "$V"/lib/python3*/site-packages)
  wheel=$SP/nvidia/cudnn
  tree "$wheel" 9.19.0 91900
  mkdir -p "$SP/nvidia_cudnn_cu12-9.19.0.56.dist-info"
  (cd "$SP" && find nvidia -type f -printf '%p,,\n') >"$SP/nvidia_cudnn_cu12-9.19.0.56.dist-info/RECORD"
  cat >"$W/wheel.py" <<'PY'
# What torch does: libcudnn.so.9 through its RPATH ($ORIGIN/../../nvidia/cudnn/lib), by path
# here; the sub-library that cuDNN then opens by name follows LD_LIBRARY_PATH.
import ctypes, glob, sys
lib = glob.glob(sys.prefix + "/lib/python3*/site-packages/nvidia/cudnn/lib")[0]
ctypes.CDLL(lib + "/libcudnn.so.9")
ctypes.CDLL("libcudnn_graph.so.9")
PY
  run_cdm doctor --json
  expect_rc 1 "a project venv whose wheel is cuDNN 9.19 fails the doctor of a 9.1 project"
  check "python.venv names the wheel's folder and the project's version" \
    sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "load cuDNN 9.19.0.56 from .$3/lib. (their RPATH beats LD_LIBRARY_PATH), not the project.s 9.1.0.70-cuda12"' _ "$(status python.venv)" "$(detail python.venv)" "$wheel"
  check "its fix is cdm attach" sh -c 'printf "%s" "$1" | grep -q "cdm attach $2"' _ "$(fixtext python.venv)" "$V"
  run_cdm doctor --json -- "$V/bin/python" "$W/wheel.py"
  expect_rc 1 "doctor -- the venv's python: the wheel's libcudnn.so.9 with the project's graph"
  check "the wheel's copy is reported from the wheel, with the wheel's version" \
    test "$(json '[(l["install"], l["version"]) for l in d["loaded"] if l["path"].endswith("/libcudnn.so.9")][0]')" = "(None, '9.19.0.56')"
  check "and the fix is to attach the environment" \
    sh -c 'printf "%s" "$1" | grep -q "cdm attach $2"' _ "$(fixtext run.cudnn)" "$V"
  before=$(cd "$V" && find . -printf '%y %p %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  run_cdm attach "$V"
  expect_rc 1 "attaching 9.1 under a 9.19 wheel (no framework) is refused"
  run_cdm attach "$V" --force
  expect_rc 0 "and done with --force"
  run_cdm doctor --json -- "$V/bin/python" "$W/wheel.py"
  check "attached: python.venv passes" test "$(status python.venv)" = ok
  check "attached: every cuDNN library the venv's python loads comes from the project's install" \
    test "$(json 'sorted(set(l["install"] for l in d["loaded"] if l["kind"] == "cudnn")), [c["status"] for c in d["checks"] if c["name"] == "run.cudnn"]')" = "(['9.1.0.70-cuda12'], ['ok'])"
  run_cdm detach "$V"
  check "detached: the wheel is back byte for byte" \
    test "$(cd "$V" && find . -printf '%y %p %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum)" = "$before"
  rm -rf "$V"
else
  skip "the doctor and a project's venv" "python3 -m venv is not available here"
fi
C=$SCRATCH/conda
tree "$C" 9.0.0 90000
mv "$C/lib/libcudnn.so.9" "$C/lib/libcudnn.so.9.0.0" && ln -s libcudnn.so.9.0.0 "$C/lib/libcudnn.so.9"
CONDA_PREFIX=$C run_cdm doctor --json
check "a conda environment with another cuDNN: a warning naming its file and version" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "holds cuDNN 9.0.0 (.$3/lib/libcudnn.so.9.)"' _ "$(status python.conda)" "$(detail python.conda)" "$C"
check "saying what to do, since conda is not attached" \
  sh -c 'printf "%s" "$1" | grep -q "conda install -c conda-forge cudnn=9.1"' _ "$(fixtext python.conda)"

done_testing
