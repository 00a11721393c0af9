# cdm resolve and 'auto': the version that works here, from stand-in NVML libraries that
# describe real machines (tests/stub_nvml.c), against installs of the versions users meet
# and Python environments whose frameworks pin cuDNN. Each expectation names its rule
# (src/engine/machine/gpu_rules.c, the driver table of compat.c, frameworks.c).
. "$TESTS_DIR/cli/lib.sh" || exit 1

CC=${CC:-cc}
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
mkdir -p "$SCRATCH/nvml" "$SCRATCH/nodriver"
"$CC" -shared -fPIC -o "$SCRATCH/nvml/libnvidia-ml.so.1" "$TESTS_DIR/stub_nvml.c" || exit 1
export CDM_DRIVER_LIB_PATH=$SCRATCH/nvml
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER VIRTUAL_ENV CONDA_PREFIX

# installed where no driver is seen (installing, too, refuses what the GPU cannot run)
for spec in 8.9.7.29_cuda12 9.1.0.70_cuda12 9.10.2.21_cuda12 9.11.0.98_cuda12 9.19.0.56_cuda12 \
  9.19.0.56_cuda13; do
  CDM_DRIVER_LIB_PATH=$SCRATCH/nodriver run_cdm install "$(fixture "cudnn-linux-x86_64-${spec}-archive.tar.xz" --version "${spec%_*}")"
  expect_rc 0 "installs ${spec}"
done

# machine NAME: the stand-in NVML describes that machine (driver; GPUs as CC|NAME;...),
# found in a folder of its own as a machine's driver is (the record per boot is kept for
# one driver folder)
machine() {
  mkdir -p "$SCRATCH/nvml/$1"
  cp "$SCRATCH/nvml/libnvidia-ml.so.1" "$SCRATCH/nvml/$1/"
  export CDM_DRIVER_LIB_PATH=$SCRATCH/nvml/$1
  case $1 in
    1080ti) export STUB_NVML_DRIVER=535.54.03 STUB_NVML_GPUS="6.1|NVIDIA GeForce GTX 1080 Ti" ;;
    t4) export STUB_NVML_DRIVER=535.54.03 STUB_NVML_GPUS="7.5|Tesla T4" ;;
    h100) export STUB_NVML_DRIVER=580.65.06 STUB_NVML_GPUS="9.0|NVIDIA H100 80GB HBM3" ;;
    5090) export STUB_NVML_DRIVER=575.51.03 STUB_NVML_GPUS="12.0|NVIDIA GeForce RTX 5090" ;;
    mixed) export STUB_NVML_DRIVER=580.65.06 STUB_NVML_GPUS="6.1|NVIDIA GeForce GTX 1080 Ti;8.9|NVIDIA GeForce RTX 4090" ;;
    nogpu) export STUB_NVML_DRIVER=580.65.06 STUB_NVML_GPUS= ;;
  esac
}

# chosen: what the last --json said was chosen
chosen() { json 'd["chosen"]'; }
# refusal ID RULE: the text of candidate ID's first refusal by RULE ("" when none)
refusal() { json "next((r['text'] for c in d['candidates'] if c['id'] == '$1' for r in c['reasons'] if r['refuses'] and r['rule'] == '$2'), '')"; }

# expect MACHINE WANT WHY [ENV=VALUE...]: resolve on MACHINE chooses WANT, the rule being WHY
expect() {
  local m=$1 want=$2 why=$3
  shift 3
  machine "$m"
  OUT=$(env "$@" "$CDM" resolve --json 2>"$SCRATCH/err")
  local got
  got=$(chosen 2>/dev/null)
  if [ "$got" = "$want" ]; then ok "$m${1:+ ($*)}: $want ($why)"; else
    not_ok "$m${1:+ ($*)}: $want ($why)"
    diag "chose: $got" "$(cat "$SCRATCH/err")" "$OUT"
  fi
}

# ---- the table of expectations: the machine alone ----------------------------------------
mkdir -p "$SCRATCH/none" && cd "$SCRATCH/none" || exit 1
expect 1080ti 9.10.2.21-cuda12 "cuDNN 9.11+ for CUDA 12 has no code below 7.5; CUDA 13 needs driver 580"
check "the 1080 Ti refuses 9.11 for CUDA 12 naming the GPU and the rule" \
  sh -c 'printf "%s" "$1" | grep -q "GPU 0, NVIDIA GeForce GTX 1080 Ti: cuDNN 9.11 for CUDA 12 has no code for compute capability 6.1"' _ "$(refusal 9.11.0.98-cuda12 gpu)"
check "and 9.19 for CUDA 13 by its driver as well" \
  sh -c 'printf "%s" "$1" | grep -q "driver 535.54.03 is too old for CUDA 13.0"' _ "$(refusal 9.19.0.56-cuda13 driver)"
check "it never picks a 9.11+ CUDA 12 build for the 1080 Ti" \
  test "$(json '[c["id"] for c in d["candidates"] if c["accepted"]]')" = "['9.10.2.21-cuda12', '9.1.0.70-cuda12', '8.9.7.29-cuda12']"
expect t4 9.19.0.56-cuda12 "7.5 has code in every build; driver 535 runs CUDA 12 builds, not CUDA 13's"
expect h100 9.19.0.56-cuda13 "newest; at one version the CUDA 13 build comes first"
expect 5090 9.19.0.56-cuda12 "Blackwell needs 9.7+; driver 575 is below CUDA 13's 580"
check "the 5090 refuses 9.1 (no Blackwell code) and 8.9.7" \
  test "$(json '[c["id"] for c in d["candidates"] if any(r["rule"] == "gpu" and r["refuses"] for r in c["reasons"])]')" = "['9.1.0.70-cuda12', '8.9.7.29-cuda12']"
expect mixed 9.10.2.21-cuda12 "every visible GPU must have code: the 1080 Ti rules out 9.11+"
check "two GPUs of two generations are both listed" \
  test "$(json '[(g["index"], g["compute_capability"]) for g in d["machine"]["gpus"]]')" = "[(0, '6.1'), (1, '8.9')]"
expect mixed 9.19.0.56-cuda13 "CUDA_VISIBLE_DEVICES=1 leaves the 4090 alone" CUDA_VISIBLE_DEVICES=1 CUDA_DEVICE_ORDER=PCI_BUS_ID
check "the hidden GPU is counted" test "$(json 'd["machine"]["hidden"], d["machine"]["gpus"][0]["name"]')" = "(1, 'NVIDIA GeForce RTX 4090')"
expect mixed 9.19.0.56-cuda13 "a GPU-UUID prefix names the 4090" CUDA_VISIBLE_DEVICES=GPU-57b00000-0000-0000-0000-000000000001
expect mixed 9.10.2.21-cuda12 "an entry naming no GPU ends the list, as CUDA does" CUDA_VISIBLE_DEVICES=0,7,1 CUDA_DEVICE_ORDER=PCI_BUS_ID
expect mixed 9.19.0.56-cuda13 "CUDA_VISIBLE_DEVICES='' hides every GPU: only the driver rule" CUDA_VISIBLE_DEVICES=
expect nogpu 9.19.0.56-cuda13 "a driver without GPUs: the driver rule alone"
check "no GPU is a fact: said so" \
  sh -c 'printf "%s" "$1" | grep -q "no GPU visible"' _ "$(json '[r["text"] for r in d["candidates"][0]["reasons"]]')"
expect h100 9.19.0.56-cuda13 "no driver at all: nothing to judge by, the newest" CDM_DRIVER_LIB_PATH="$SCRATCH/nodriver"
check "no driver is said" test "$(json 'd["machine"]["driver_found"], d["machine"]["gpus"]')" = "(False, [])"

# ---- the CUDA driver alone, and CUDA's own numbering ----------------------------------------
# a stand-in libcuda.so.1 (tests/stub_cuda.c): where NVML is absent the GPUs and the CUDA
# version come from the driver API; where CUDA_VISIBLE_DEVICES names GPUs by index and they
# differ, CUDA's order (fastest first by default) decides which, asked of the driver
mkdir -p "$SCRATCH/cudaonly" "$SCRATCH/both"
"$CC" -shared -fPIC -o "$SCRATCH/cudaonly/libcuda.so.1" "$TESTS_DIR/stub_cuda.c" || exit 1
cp "$SCRATCH/cudaonly/libcuda.so.1" "$SCRATCH/nvml/libnvidia-ml.so.1" "$SCRATCH/both/"
export STUB_NVML_DRIVER=580.65.06 STUB_NVML_GPUS="7.5|Tesla T4"
OUT=$(CDM_DRIVER_LIB_PATH=$SCRATCH/cudaonly STUB_CUDA_VERSION=12020 "$CDM" resolve --json 2>&1)
check "without NVML: the GPU from the CUDA driver, and its CUDA 12.2 refuses CUDA 13 builds" \
  test "$(json 'd["machine"]["gpus"][0]["name"], d["machine"]["driver_cuda"], d["chosen"]')" = "('Tesla T4', '12.2', '9.19.0.56-cuda12')"
check "the driver rule names the CUDA version" \
  test "$(refusal 9.19.0.56-cuda13 driver)" = "the driver supports CUDA 12.2, older than what a CUDA 13 build needs"
export STUB_NVML_GPUS="6.1|NVIDIA GeForce GTX 1080 Ti;8.9|NVIDIA GeForce RTX 4090"
OUT=$(CDM_DRIVER_LIB_PATH=$SCRATCH/both CUDA_VISIBLE_DEVICES=0 "$CDM" resolve --json 2>&1)
check "CUDA_VISIBLE_DEVICES=0 by CUDA's default order is the fastest GPU, the 4090" \
  test "$(json 'd["machine"]["gpus"][0]["name"], d["chosen"]')" = "('NVIDIA GeForce RTX 4090', '9.19.0.56-cuda13')"
OUT=$(CDM_DRIVER_LIB_PATH=$SCRATCH/both CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID "$CDM" resolve --json 2>&1)
check "and with CUDA_DEVICE_ORDER=PCI_BUS_ID the first on the bus, the 1080 Ti" \
  test "$(json 'd["machine"]["gpus"][0]["name"], d["chosen"]')" = "('NVIDIA GeForce GTX 1080 Ti', '9.10.2.21-cuda12')"

# ---- the record per boot ---------------------------------------------------------------
machine t4
FACTS=$HOME/.local/share/cdm/machine.facts
run_cdm resolve --json
run_cdm resolve --json
check "the facts are kept for the boot" test "$(json 'd["machine"]["cached"]')" = True
sed -i 's/^boot=.*/boot=another-boot/' "$FACTS"
run_cdm resolve --json
check "another boot's record is not believed" test "$(json 'd["machine"]["cached"]')" = False
check "and is replaced by this boot's" grep -q "^boot=$(cat /proc/sys/kernel/random/boot_id)" "$FACTS"
sed -i 's/^gpu=7.5|/gpu=6.1|/' "$FACTS"
run_cdm resolve --fresh --json
check "--fresh asks the driver, not the record" test "$(json 'd["machine"]["cached"], d["chosen"]')" = "(False, '9.19.0.56-cuda12')"
rm -f "$FACTS"
printf 'cdm machine facts 1\nboot=%s\n' "$(cat /proc/sys/kernel/random/boot_id)" >"$SCRATCH/forged"
ln -s "$SCRATCH/forged" "$FACTS"
run_cdm resolve --json
check "a link in the record's place is neither read nor written through" \
  test "$(json 'd["machine"]["cached"]')|$(wc -l <"$SCRATCH/forged")" = "False|2"
rm -f "$FACTS"

# ---- environments: frameworks' pins ------------------------------------------------------
# env_with DIR [DIST VERSION REQUIRES-DIST]...: a venv whose dist-info says these
env_with() {
  local v=$1
  shift
  "$PY" -m venv --without-pip "$v" || return 1
  dists "$(echo "$v"/lib/python3*/site-packages)" "$@"
}
if ! "$PY" -m venv --without-pip "$SCRATCH/probe" >/dev/null 2>&1; then
  skip_tool "frameworks in resolve" "python3 -m venv (python3-venv) is not available"
else
  mkdir -p "$SCRATCH/ptorch" && cd "$SCRATCH/ptorch" || exit 1
  env_with "$SCRATCH/ptorch/.venv" torch 2.5.1 'nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux"'
  expect h100 9.19.0.56-cuda12 "torch built with the CUDA 12 wheel refuses the CUDA 13 build"
  check "naming torch's rule" \
    sh -c 'printf "%s" "$1" | grep -q "torch 2.5.1 was built with the CUDA 12 build of cuDNN"' _ "$(refusal 9.19.0.56-cuda13 framework)"
  expect 1080ti 9.10.2.21-cuda12 "torch's minor 9.1 or newer, and no code below 7.5 from 9.11"
  mkdir -p "$SCRATCH/pjax" && cd "$SCRATCH/pjax" || exit 1
  env_with "$SCRATCH/pjax/.venv" jax_cuda12_plugin 0.6.2 'nvidia-cudnn-cu12<10.0,>=9.8'
  expect 1080ti 9.10.2.21-cuda12 "JAX built with 9.8 takes 9.10.2 (not the known-bad 9.10.0)"
  expect t4 9.19.0.56-cuda12 "JAX for CUDA 12 on a T4"
  mkdir -p "$SCRATCH/pct2" && cd "$SCRATCH/pct2" || exit 1
  env_with "$SCRATCH/pct2/.venv" ctranslate2 4.4.0 '' torch 2.5.1 'nvidia-cudnn-cu12==9.1.0.70'
  expect t4 None "CTranslate2 4.4 wants cuDNN 8 and torch cuDNN 9: no one version"
  check "the newest per major: 9 for torch, 8 for CTranslate2" \
    test "$(json 'd["per_major"]')" = "{'9': '9.19.0.56-cuda12', '8': '8.9.7.29-cuda12'}"
  run_cdm resolve
  expect_rc 1 "resolve exits 1 when no candidate is accepted"
  # the pin narrows the choice
  mkdir -p "$SCRATCH/ppin" && cd "$SCRATCH/ppin" && echo 9.10 >.cudnn-version
  expect h100 9.10.2.21-cuda12 "the project's pin says 9.10"
  check "the others are refused by the pin" \
    test "$(refusal 9.19.0.56-cuda13 pin)" = "the project's pin file says 9.10"
  run_cdm link . auto
  check "link auto chooses anew, the pin being what it writes" test "$(readlink cuda_link)|$(cat .cudnn-version)" = "$CDM_ROOT/9.19.0.56-cuda13|9.19.0.56-cuda13"
fi

# ---- link auto, and the refusals of link and exec ---------------------------------------------
machine 1080ti
mkdir -p "$SCRATCH/pauto" && cd "$SCRATCH/pauto" || exit 1
run_cdm link . auto
expect_rc 0 "link . auto on the 1080 Ti"
check "links the newest it runs" test "$(readlink cuda_link)" = "$CDM_ROOT/9.10.2.21-cuda12"
expect_err "^auto: 9.10.2.21-cuda12 for NVIDIA GeForce GTX 1080 Ti \(6.1\), driver 535.54.03: the newest of 6 candidates that every rule accepts; newer, refused: 9.19.0.56-cuda13 \(gpu\), 9.19.0.56-cuda12 \(gpu\), 9.11.0.98-cuda12 \(gpu\)" \
  "and says why in one line"
run_cdm link . 9.19 --cuda 12
expect_rc 1 "linking 9.19 for CUDA 12 on the 1080 Ti is refused"
expect_err "this machine cannot run 9.19.0.56-cuda12: GPU 0, NVIDIA GeForce GTX 1080 Ti: cuDNN 9.19 for CUDA 12 has no code for compute capability 6.1" \
  "naming the GPU and the rule"
check "the link is as it was" test "$(readlink cuda_link)" = "$CDM_ROOT/9.10.2.21-cuda12"
run_cdm link . 9.19 --cuda 12 --force
expect_rc 0 "--force links it"
expect_err "warning: linking 9.19.0.56-cuda12 anyway \(--force\)" "with a warning"
# status NAME / detail NAME: one check of the last doctor --json
status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
run_cdm doctor --json
check "the doctor's machine.gpu names the GPU" \
  test "$(status machine.gpu)|$(detail machine.gpu)" = "ok|1 GPU: NVIDIA GeForce GTX 1080 Ti (compute capability 6.1)"
check "machine.cudnn fails the forced link, naming the rule" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "this machine cannot run 9.19.0.56-cuda12: GPU 0, NVIDIA GeForce GTX 1080 Ti: cuDNN 9.19 for CUDA 12 has no code"' _ "$(status machine.cudnn)" "$(detail machine.cudnn)"
check "resolve names the version to link instead" \
  test "$(status resolve)|$(detail resolve)" = "warn|the newest install this machine and project accept is 9.10.2.21-cuda12, not 9.19.0.56-cuda12"
run_cdm doctor --json -- python3 -c pass
expect_rc 1 "doctor -- python3 -c pass in a linked project fails"
check "run.gpu: ran without the GPU" \
  test "$(status run.gpu)|$(detail run.gpu)" = "fail|ran without the GPU: it loaded no cuDNN library and no CUDA driver"
run_cdm exec -- true
expect_rc 1 "exec with an install the GPU cannot run is refused"
expect_err "this machine cannot run 9.19.0.56-cuda12" "saying so"
run_cdm exec --force -- true
expect_rc 0 "exec --force runs it"
V=$SCRATCH/vattach
if "$PY" -m venv --without-pip "$V" >/dev/null 2>&1; then
  sp=$(echo "$V"/lib/python3*/site-packages)
  mkdir -p "$sp/nvidia/cudnn/lib"
  for f in "" _adv _cnn _graph _ops; do head -c 100 /dev/urandom >"$sp/nvidia/cudnn/lib/libcudnn$f.so.9"; done
  dists "$sp" nvidia_cudnn_cu12 9.19.0.56 ''
  before=$(tree_digest "$V")
  run_cdm attach "$V" .
  expect_rc 1 "attach to a project whose install the GPU cannot run is refused"
  expect_err "this machine cannot run 9.19.0.56-cuda12: GPU 0, NVIDIA GeForce GTX 1080 Ti" "naming the GPU"
  check "the environment is as it was" test "$(tree_digest "$V")" = "$before"
  run_cdm attach "$V" . --force
  expect_rc 0 "attach --force goes past it"
  run_cdm detach "$V"
fi
run_cdm link . 9.10
run_cdm doctor --json --allow-cpu -- python3 -c pass
check "--allow-cpu: the CPU run passes run.gpu with a warning" test "$(status run.gpu)" = warn
check "and machine.cudnn and resolve pass on 9.10" \
  test "$(status machine.cudnn)|$(status resolve)" = "ok|ok"
machine nogpu
run_cdm link . 9.19 --cuda 13
expect_rc 0 "a machine with no GPU visible refuses nothing for its GPU"

# ---- install refuses what the GPU cannot run --------------------------------------------
machine 1080ti
A=$(fixture cudnn-linux-x86_64-9.12.0.46_cuda12-archive.tar.xz --version 9.12.0.46)
run_cdm install "$A"
expect_rc 1 "installing 9.12 for CUDA 12 on the 1080 Ti is refused"
expect_err "this machine cannot run 9.12.0.46-cuda12: GPU 0, NVIDIA GeForce GTX 1080 Ti" "naming the GPU and the rule"
check "nothing is left of it in the store" test ! -e "$CDM_ROOT/9.12.0.46-cuda12" -a -z "$(ls -A "$CDM_ROOT/.staging" 2>/dev/null)"
run_cdm install "$A" --platform linux-x86_64
expect_rc 0 "--platform (filling a store for other machines) installs it"
run_cdm remove 9.12
run_cdm install "$A" --force
expect_rc 0 "--force installs it with a warning"
expect_err "warning: installing 9.12.0.46-cuda12 anyway \(--force\)" "saying so"
run_cdm remove 9.12

# ---- install auto: what [fetch] base offers, judged the same way -------------------------
# a local base in NVIDIA's layout (tests/mirror/make_mirror.py): 9.27 for CUDA 12 and 13
mkdir -p "$SCRATCH/offer" "$SCRATCH/pinst" && cd "$SCRATCH/pinst" || exit 1
for cu in 12 13; do
  "$MAKE_FIXTURE" "$SCRATCH/offer/cudnn-linux-x86_64-9.27.0.48_cuda$cu-archive.tar.xz" >/dev/null
done
python3 "$TESTS_DIR/mirror/make_mirror.py" "$SCRATCH/base" 9.27.0 \
  "linux-x86_64/cuda12=$SCRATCH/offer/cudnn-linux-x86_64-9.27.0.48_cuda12-archive.tar.xz" \
  "linux-x86_64/cuda13=$SCRATCH/offer/cudnn-linux-x86_64-9.27.0.48_cuda13-archive.tar.xz"
machine t4
CDM_FETCH_BASE=$SCRATCH/base run_cdm resolve --available --json
check "resolve --available judges the offers too" \
  test "$(json '[(c["id"], c["installed"], c["accepted"]) for c in d["candidates"][:2]]')" = "[('9.27.0.48-cuda13', False, False), ('9.27.0.48-cuda12', False, True)]"
CDM_FETCH_BASE=$SCRATCH/base run_cdm install auto
expect_rc 0 "install auto on the T4 (driver 535)"
expect_err "^auto: 9.27.0.48-cuda12 for Tesla T4 \(7.5\), driver 535.54.03: the newest of 8 candidates that every rule accepts; newer, refused: 9.27.0.48-cuda13 \(driver\)" \
  "chooses the CUDA 12 build the driver runs, saying why"
check "and installs it" test -d "$CDM_ROOT/9.27.0.48-cuda12" -a ! -e "$CDM_ROOT/9.27.0.48-cuda13"

# ---- auto with nothing accepted ------------------------------------------------------------
machine 1080ti
if [ -d "$SCRATCH/pct2/.venv" ]; then
  cd "$SCRATCH/pct2" || exit 1
  run_cdm link . auto
  expect_rc 1 "auto with no accepted install fails"
  expect_err "no install is accepted here: 9.27.0.48-cuda12: .*; 'cdm resolve \.' says why each is refused" "naming the refusals"
  check "and links nothing" test ! -e cuda_link
fi

done_testing
