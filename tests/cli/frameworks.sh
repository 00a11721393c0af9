# The frameworks' rules (src/engine/pyenv/frameworks.c), read from an environment's dist-info and
# applied by cdm attach, by a switch of a project with the environment attached, and by
# the doctor: torch's build minor, JAX's known-bad 9.10.0, ONNX Runtime's major,
# CTranslate2's fixed major by its version, TensorRT's feature-only 8.9.7.
. "$TESTS_DIR/cli/lib.sh" || exit 1

PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
if ! "$PY" -m venv --without-pip "$SCRATCH/probe" >/dev/null 2>&1; then
  skip_tool "the frameworks' rules on a Python environment" "python3 -m venv (python3-venv) is not available"
  # ---- a switch to an install of another layout (lib64: cuDNN 8.3 and older) ----------------
run_cdm install "$(fixture cudnn-linux-x86_64-8.9.7.29_cuda11-archive.tar.xz --version 8.9.7.29)"
run_cdm install "$(fixture cudnn-11.4-linux-x64-v8.2.4.15.tgz --version 8.2.4.15)"
mkdir -p "$SCRATCH/p897-11"
run_cdm link "$SCRATCH/p897-11" 8.9.7 --cuda 11
OLD=$(WHEEL_CUDA=11 env_with old 8.1.1.33)
run_cdm attach "$OLD" "$SCRATCH/p897-11"
expect_rc 0 "a cu11 wheel of 8.1 attached to a project on 8.9.7 (lib)"
run_cdm link "$SCRATCH/p897-11" 8.2.4
expect_rc 1 "a switch to 8.2.4, whose libraries are in lib64, is refused for the attached environment"
expect_err "8.2.4.15-cuda11 keeps them in 'lib64' \(another layout\); detach it first" "saying why and what to do"
run_cdm detach "$OLD"

done_testing
  exit
fi

for spec in 9.19.0.56_cuda12 9.10.0.56_cuda12 9.1.0.70_cuda12 8.9.7.29_cuda12 8.9.6.50_cuda12; do
  run_cdm install "$(fixture "cudnn-linux-x86_64-${spec}-archive.tar.xz" --version "${spec%_*}")"
done
for v in 9.19 9.10 9.1 8.9.7 8.9.6; do
  mkdir -p "$SCRATCH/p$v"
  run_cdm link "$SCRATCH/p$v" "$v" >/dev/null
done

# env NAME WHEEL_VERSION [DIST VERSION REQUIRES-DIST]...: a venv with the nvidia-cudnn-cu12
# wheel's layout and the frameworks' METADATA
env_with() {
  local v=$SCRATCH/$1 wheel=$2
  shift 2
  "$PY" -m venv --without-pip "$v" || return 1
  local sp major=${wheel%%.*}
  sp=$(echo "$v"/lib/python3*/site-packages)
  local cu=${WHEEL_CUDA:-12}
  mkdir -p "$sp/nvidia/cudnn/lib" "$sp/nvidia_cudnn_cu$cu-$wheel.dist-info"
  local f
  for f in "" _adv _cnn _graph _ops; do
    head -c 1000 /dev/urandom >"$sp/nvidia/cudnn/lib/libcudnn$f.so.$major"
  done
  if [ "$major" = 8 ]; then
    for f in _ops_infer _ops_train _cnn_infer _cnn_train _adv_infer _adv_train; do
      head -c 1000 /dev/urandom >"$sp/nvidia/cudnn/lib/libcudnn$f.so.8"
    done
    rm -f "$sp"/nvidia/cudnn/lib/libcudnn_{adv,cnn,graph,ops}.so.8
  fi
  printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu%s\nVersion: %s\n' "$cu" "$wheel" \
    >"$sp/nvidia_cudnn_cu$cu-$wheel.dist-info/METADATA"
  dists "$sp" "$@"
  printf '%s\n' "$v"
}

# ---- JAX: its build's minor, and 9.10.0 known bad ------------------------------------------
J=$(env_with jax 9.19.0.56 jax_cuda12_plugin 0.6.2 'nvidia-cudnn-cu12<10.0,>=9.8')
run_cdm attach "$J" "$SCRATCH/p9.10"
expect_rc 1 "JAX built with cuDNN 9.8 refuses 9.10.0, a known-bad version"
expect_err "JAX refuses cuDNN 9.10.0, which changed an enum it uses" "naming the reason"
run_cdm attach "$J" "$SCRATCH/p9.1"
expect_rc 1 "JAX built with 9.8 refuses 9.1, an older minor"
expect_err "jax_cuda12_plugin 0.6.2 was built with cuDNN 9.8 and 9.1.0.70-cuda12 is older" "naming the build"
run_cdm attach "$J" "$SCRATCH/p9.19"
expect_rc 0 "and accepts 9.19"
run_cdm doctor "$SCRATCH/p9.19" --json
check "the doctor lists JAX's rule for the attached environment" \
  test "$(json '[c["status"] for c in d["checks"] if c["name"] == "python.attached.jax_cuda12_plugin"]')" = "['ok']"
run_cdm link "$SCRATCH/p9.19" 9.10
expect_rc 1 "a switch of the project to 9.10.0 is refused for the attached JAX"
expect_err "the Python environment '.*jax' follows it and JAX refuses cuDNN 9.10.0" "naming the environment"
run_cdm detach "$J"

# ---- ONNX Runtime: the same major, any minor --------------------------------------------------
O=$(env_with ort 9.19.0.56 onnxruntime_gpu 1.22.0 'nvidia-cudnn-cu12~=9.0; extra == "cuda"')
run_cdm attach "$O" "$SCRATCH/p9.1"
expect_rc 0 "ONNX Runtime built with cuDNN 9 accepts 9.1 (any minor of its major)"
run_cdm detach "$O"

# ---- CTranslate2: its version fixes the major ---------------------------------------------------
CT2=$(env_with ct2 8.9.7.29 ctranslate2 4.4.0 '')
run_cdm attach "$CT2" "$SCRATCH/p9.19"
expect_rc 1 "CTranslate2 4.4 refuses cuDNN 9"
expect_err "ctranslate2 4.4.0 needs cuDNN 8 and 9.19.0.56-cuda12 is cuDNN 9" "naming the rule"
run_cdm attach "$CT2" "$SCRATCH/p8.9.7"
expect_rc 0 "and takes cuDNN 8.9.7"
run_cdm detach "$CT2"

# ---- TensorRT: 8.9.7 for its cuDNN tactics, a warning only --------------------------------------
R=$(env_with trt 8.9.7.29 tensorrt 10.3.0 '')
run_cdm attach "$R" "$SCRATCH/p8.9.6"
expect_rc 0 "TensorRT 10 does not refuse 8.9.6: its cuDNN tactics are off by default"
run_cdm doctor "$SCRATCH/p8.9.6" --json
check "the doctor warns that its cuDNN tactics need 8.9.7" \
  test "$(json '[(c["status"], "8.9.7" in c["detail"]) for c in d["checks"] if c["name"] == "python.attached.tensorrt"]')" = "[('warn', True)]"
run_cdm detach "$R"

# ---- a switch to an install of another layout (lib64: cuDNN 8.3 and older) ----------------
run_cdm install "$(fixture cudnn-linux-x86_64-8.9.7.29_cuda11-archive.tar.xz --version 8.9.7.29)"
run_cdm install "$(fixture cudnn-11.4-linux-x64-v8.2.4.15.tgz --version 8.2.4.15)"
mkdir -p "$SCRATCH/p897-11"
run_cdm link "$SCRATCH/p897-11" 8.9.7 --cuda 11
OLD=$(WHEEL_CUDA=11 env_with old 8.1.1.33)
run_cdm attach "$OLD" "$SCRATCH/p897-11"
expect_rc 0 "a cu11 wheel of 8.1 attached to a project on 8.9.7 (lib)"
run_cdm link "$SCRATCH/p897-11" 8.2.4
expect_rc 1 "a switch to 8.2.4, whose libraries are in lib64, is refused for the attached environment"
expect_err "8.2.4.15-cuda11 keeps them in 'lib64' \(another layout\); detach it first" "saying why and what to do"
run_cdm detach "$OLD"

done_testing
