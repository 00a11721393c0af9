# A second cuDNN major in one project (cdm link --also): one link to a pair view holding
# both, so that one process (faster-whisper's CTranslate2 on cuDNN 8 beside torch on cuDNN 9)
# opens libcudnn.so.9 and libcudnn.so.8 and both come from the store (/proc/self/maps), by
# name through activation and by path through exec's redirect; a switch within one major
# keeps the other; history and rollback carry both; remove refuses the second's install.
. "$TESTS_DIR/cli/lib.sh" || exit 1

CC=${CC:-cc}
PY=$(python3 -c 'import sys, ctypes; print(sys.executable)' 2>/dev/null)
if ! command -v "$CC" >/dev/null 2>&1 || [ -z "$PY" ]; then
  skip_tool "a second cuDNN major" "no C compiler ($CC) to build stand-ins, or no python3 with ctypes"
  done_testing
  exit
fi
unset CUDA_HOME CONDA_PREFIX VIRTUAL_ENV LD_AUDIT CDM_DRIVER_LIB_PATH
export LD_LIBRARY_PATH="" CDM_DRIVER_LIB_PATH=$SCRATCH/nodriver
mkdir -p "$CDM_DRIVER_LIB_PATH"
W=$SCRATCH/work
mkdir -p "$W"
. "$TESTS_DIR/cli/lib_stub_cudnn.sh" || exit 1

install 9.19.0.56 13 91900 || not_ok "stand-in 9.19.0.56 installs"
install 9.20.0.10 13 92000 || not_ok "stand-in 9.20.0.10 installs"
install 8.9.7.29 12 8907 || not_ok "stand-in 8.9.7.29 installs"
install 8.9.6.50 12 8906 || not_ok "stand-in 8.9.6.50 installs"
P=$SCRATCH/p
mkdir -p "$P"
cd "$P" || exit 1

# both.py: load cuDNN 9 and 8 by name (as torch and CTranslate2 do through the loader), print
# each library's folder as mapped and the versions they answer
cat >"$W/both.py" <<'PY'
import ctypes, os
v9 = ctypes.CDLL("libcudnn.so.9").cudnnGetVersion()
v8 = ctypes.CDLL("libcudnn.so.8").cudnnGetVersion()
maps = set(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn.so." in l)
print(v9, v8, " ".join(sorted(os.path.dirname(os.path.realpath(m)) for m in maps)))
PY
real() { (cd "$CDM_ROOT/$1/lib" && pwd -P); }

run_cdm link . 9.19
run_cdm link . 8.9.7 --also
expect_rc 0 "link . 8.9.7 --also beside 9.19"
expect_err "^linked '$P/cuda_link' -> 9.19.0.56-cuda13 beside 8.9.7.29-cuda12 \(generation 2\)" "saying both"
run_cdm which --json
check "which names the second" test "$(json 'd["also"], d["id"]')" = "('8.9.7.29-cuda12', '9.19.0.56-cuda13')"
check "the link leads to one view holding both" test "$(readlink cuda_link)" = "$CDM_ROOT/views/9.19.0.56-cuda13+8.9.7.29-cuda12"
check "its lib holds both majors' sonames" test -e cuda_link/lib/libcudnn.so.9 -a -e cuda_link/lib/libcudnn.so.8 -a -e cuda_link/lib/libcudnn_ops_infer.so.8
check "the headers and the pin are the first install's" \
  test "$(grep -c 'CUDNN_MAJOR 9' cuda_link/include/cudnn_version.h)|$(cat .cudnn-version)" = "1|9.19.0.56-cuda13"
OUT=$("$CDM" exec -- "$PY" "$W/both.py" 2>&1)
check "exec: one process opens both, each from its install in the store" \
  test "$OUT" = "91900 8907 $(real 8.9.7.29-cuda12) $(real 9.19.0.56-cuda13)"
OUT=$(eval "$("$CDM" activate --shell bash)" && "$PY" "$W/both.py" 2>&1)
check "activation: the same by the loader's search (LD_LIBRARY_PATH)" \
  test "$OUT" = "91900 8907 $(real 8.9.7.29-cuda12) $(real 9.19.0.56-cuda13)"
run_cdm doctor --json --allow-cpu -- "$PY" "$W/both.py"
check "the doctor's run.cudnn: both majors, each from the project's own install" \
  test "$(json '[c["status"] for c in d["checks"] if c["name"] == "run.cudnn"], sorted(set(l["install"] for l in d["loaded"]))')" = "(['ok'], ['8.9.7.29-cuda12', '9.19.0.56-cuda13'])"
# by path, as a wheel's RPATH or JAX would: exec's redirect takes each from the store
mkdir -p "$W/other9" "$W/other8"
tree "$W/other9" 9.18.0 91800 && tree "$W/other8" 8.9.5 8905
cat >"$W/bypath.py" <<'PY'
import ctypes, os, sys
v9 = ctypes.CDLL(sys.argv[1] + "/lib/libcudnn.so.9").cudnnGetVersion()
v8 = ctypes.CDLL(sys.argv[2] + "/lib/libcudnn.so.8").cudnnGetVersion()
print(v9, v8)
PY
run_cdm exec -- "$PY" "$W/bypath.py" "$W/other9" "$W/other8"
check "exec's redirect: loads by path of either major come from the store" test "$OUT" = "91900 8907"

run_cdm link . 9.20
expect_rc 0 "a switch within cuDNN 9"
check "keeps 8.9.7 beside it" test "$(readlink cuda_link)" = "$CDM_ROOT/views/9.20.0.10-cuda13+8.9.7.29-cuda12"
run_cdm link . 8.9.6
check "a switch within cuDNN 8 keeps 9.20" test "$(readlink cuda_link)" = "$CDM_ROOT/views/9.20.0.10-cuda13+8.9.6.50-cuda12"
run_cdm link . 9.19 --also
expect_rc 1 "--also with a version of the link's own major is refused"
expect_err "links 9.20.0.10-cuda13, of the same cuDNN major 9; --also adds another major" "saying why"
run_cdm history --json
check "history records both in each generation's view" \
  test "$(json '[(g["id"], g["also"]) for g in d][-3:]')" = "[('9.19.0.56-cuda13', '8.9.7.29-cuda12'), ('9.20.0.10-cuda13', '8.9.7.29-cuda12'), ('9.20.0.10-cuda13', '8.9.6.50-cuda12')]"
run_cdm rollback .
check "rollback restores both (9.20 with 8.9.7)" test "$(readlink cuda_link)" = "$CDM_ROOT/views/9.20.0.10-cuda13+8.9.7.29-cuda12"
run_cdm rollback . --to 1
check "rollback to the first generation: 9.19 alone" test "$(readlink cuda_link)" = "$CDM_ROOT/9.19.0.56-cuda13"
run_cdm rollback . --to 2
check "and forward again to 9.19 with 8.9.7" test "$(readlink cuda_link)" = "$CDM_ROOT/views/9.19.0.56-cuda13+8.9.7.29-cuda12"
OUT=$("$CDM" exec -- "$PY" "$W/both.py" 2>&1)
check "where both load from the store again" test "$OUT" = "91900 8907 $(real 8.9.7.29-cuda12) $(real 9.19.0.56-cuda13)"
run_cdm list --json
check "list counts the project as a user of both" \
  test "$(json '[(i["id"], i["projects"]) for i in d if i["id"] in ("8.9.7.29-cuda12", "9.19.0.56-cuda13")]')" = "[('8.9.7.29-cuda12', ['$P']), ('9.19.0.56-cuda13', ['$P'])]"
run_cdm remove 8.9.7
expect_rc 1 "removing the second major's install is refused while the project holds it"
check "which is still there" test -d "$CDM_ROOT/8.9.7.29-cuda12"
run_cdm gc
check "gc keeps the view the project uses" test -d "$CDM_ROOT/views/9.19.0.56-cuda13+8.9.7.29-cuda12"
run_cdm verify
expect_rc 0 "every install still verifies"
# an environment with the cuDNN 8 wheel (CTranslate2's) attached follows the second major
V=$SCRATCH/v8
if "$PY" -m venv --without-pip "$V" >/dev/null 2>&1; then
  sp=$(echo "$V"/lib/python3*/site-packages)
  mkdir -p "$sp/nvidia/cudnn/lib"
  for f in "" _ops_infer _ops_train _cnn_infer _cnn_train _adv_infer _adv_train; do
    head -c 100 /dev/urandom >"$sp/nvidia/cudnn/lib/libcudnn$f.so.8"
  done
  dists "$sp" nvidia_cudnn_cu12 8.9.7.29 ''
  run_cdm attach "$V" .
  expect_rc 0 "a cuDNN 8 wheel's environment attaches to the project's second major"
  check "its libcudnn.so.8 is the store's 8.9.7" test "$sp/nvidia/cudnn/lib/libcudnn.so.8" -ef "$CDM_ROOT/8.9.7.29-cuda12/lib/libcudnn.so.8"
  run_cdm link . 9.20
  expect_rc 0 "a switch within cuDNN 9 is not held up by the environment on cuDNN 8"
  check "which still has 8.9.7" test "$sp/nvidia/cudnn/lib/libcudnn.so.8" -ef "$CDM_ROOT/8.9.7.29-cuda12/lib/libcudnn.so.8"
  run_cdm link . 8.9.6
  check "a switch within cuDNN 8 takes it along to 8.9.6" test "$sp/nvidia/cudnn/lib/libcudnn.so.8" -ef "$CDM_ROOT/8.9.6.50-cuda12/lib/libcudnn.so.8"
  run_cdm detach "$V"
  expect_rc 0 "and it detaches"
  run_cdm link . 9.19
  run_cdm link . 8.9.7
fi

# a kill at each step of a switch of the pair: the old pair or the new one stands, and the
# record (settled by the next command) says which
NEW=$CDM_ROOT/views/9.20.0.10-cuda13+8.9.7.29-cuda12
for at in view-built link-recorded link-switched; do
  before=$(readlink cuda_link)
  CDM_CRASH_AT=$at "$CDM" link . 9.20 >/dev/null 2>&1
  after=$(readlink cuda_link)
  run_cdm which --json
  check "killed at $at: the old pair or the new stands, and the record agrees" \
    sh -c '{ [ "$1" = "$2" ] || [ "$1" = "$3" ]; } && [ "$4" = "$1|False|$5" ]' _ "$after" "$before" "$NEW" \
    "$(json 'd["target"] + "|" + str(d["drift"]) + "|" + d["also"]')" 8.9.7.29-cuda12
  run_cdm link . 9.19
done
run_cdm link . 9.19 --only
check "--only drops the second major" test "$(readlink cuda_link)" = "$CDM_ROOT/9.19.0.56-cuda13"
run_cdm gc
check "and gc then removes the views no project uses" test -z "$(ls "$CDM_ROOT/views")"
run_cdm link "$SCRATCH/fresh" 8.9.7 --also
expect_rc 1 "--also in a project that links nothing is refused"

done_testing
