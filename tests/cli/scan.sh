# cdm scan: every copy of cuDNN on the machine, read only: three venvs, a conda
# environment and a toolkit with cuDNN copied in, each with its version, size, whether it
# is attached, and whether its bytes equal an install in the store.
. "$TESTS_DIR/cli/lib.sh"

PY=$(command -v python3) || { skip_tool "scan" "no python3 to write wheels"; done_testing; exit; }
if ! "$PY" -m venv "$SCRATCH/probe-venv" >/dev/null 2>&1; then
  skip_tool "scan" "python3 cannot make a venv (python3-venv)"
  done_testing
  exit
fi
rm -rf "$SCRATCH/probe-venv"
mkdir -p "$SCRATCH/wheels"
w91=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu12 9.1.0.70)
w914=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu13 9.14.0.64)
venv() { # venv DIR WHEEL: a venv below the home folder with the wheel installed by pip
  "$PY" -m venv "$1" >/dev/null &&
    "$1/bin/python" -m pip install -q --no-deps --no-index --disable-pip-version-check "$2"
}
# shellcheck disable=SC2015 # the fallback is meant to run when either step fails
venv "$HOME/projects/a/.venv" "$w91" && venv "$HOME/projects/b/.venv" "$w91" &&
  venv "$HOME/.virtualenvs/c" "$w914" || { not_ok "the venvs are made"; done_testing; exit 1; }
# a conda environment: its prefix's lib/ and include/, and conda-meta
conda=$HOME/miniconda3/envs/d
mkdir -p "$conda/conda-meta" "$conda/lib" "$conda/include"
"$PY" - "$w91" "$conda" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith("nvidia/cudnn/") and not n.endswith("__init__.py"):
        open(sys.argv[2] + "/" + n[len("nvidia/cudnn/"):], "wb").write(z.read(n))
PY
# a toolkit with a cuDNN 9.14 copied in, found as CUDA_HOME
export CUDA_HOME=$SCRATCH/cuda-13.0
mkdir -p "$CUDA_HOME/include" "$CUDA_HOME/lib64" "$CUDA_HOME/bin"
"$PY" - "$w914" "$CUDA_HOME" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith("nvidia/cudnn/") and not n.endswith("__init__.py"):
        open(sys.argv[2] + "/" + n[len("nvidia/cudnn/"):].replace("lib/", "lib64/"), "wb").write(z.read(n))
PY
echo "not cuDNN" >"$CUDA_HOME/lib64/libcublas.so.13"

run_cdm install "$w91"
expect_rc 0 "the store has 9.1.0.70-cuda12, from its wheel"
mkdir -p "$SCRATCH/p"
run_cdm link "$SCRATCH/p" 9.1
run_cdm attach "$HOME/projects/b/.venv" "$SCRATCH/p"
expect_rc 0 "venv b is attached to the project"

before=$(tree_digest "$HOME")
store_before=$(tree_digest "$CDM_ROOT")
run_cdm scan --json
expect_rc 0 "cdm scan runs"
# mine FIELD: the copies this scenario made (the machine may have its own), each by a short
# name (a, b: the 9.1 venvs; c: the 9.14 venv; d: the conda environment; tk: the toolkit),
# with that field, in name order
mine() {
  python3 -c '
import json, sys
d = json.loads(sys.argv[1])
names = {"projects/a/": "a", "projects/b/": "b", ".virtualenvs/c/": "c", "envs/d": "d", "cuda-13.0": "tk"}
out = []
for c in d["copies"]:
    for part, name in names.items():
        if c["path"].startswith(sys.argv[2]) and part in c["path"]:
            out.append((name, c[sys.argv[3]]))
print(" ".join(f"{n}={v}" for n, v in sorted(out)))' "$OUT" "$SCRATCH/" "$1"
}
check "five copies: three venvs' wheels, the conda environment, the toolkit" \
  test "$(mine kind)" = "a=wheel b=wheel c=wheel d=conda tk=toolkit"
check "each with its version: the wheels' whole, the others' from their headers" \
  test "$(mine version)" = "a=9.1.0.70 b=9.1.0.70 c=9.14.0.64 d=9.1.0 tk=9.14.0"
check "the wheels' CUDA major from their names" test "$(mine cuda)" = "a=12 b=12 c=13 d=0 tk=0"
check "which equal the store's install: venvs a and b and the conda environment" \
  test "$(mine same_as)" = "a=9.1.0.70-cuda12 b=9.1.0.70-cuda12 c= d=9.1.0.70-cuda12 tk="
check "venv b is attached, no other" \
  test "$(mine attached)" = "a=False b=True c=False d=False tk=False"
size=$(cat "$HOME"/projects/a/.venv/lib/python3*/site-packages/nvidia/cudnn/{lib,include}/*cudnn* | wc -c)
check "a venv's size is its cuDNN files' bytes ($size)" \
  test "$(mine size | cut -d' ' -f1)" = "a=$size"
check "the toolkit's other libraries are not counted: 9 files" test "$(mine files | cut -d' ' -f5)" = tk=9
check "it changed nothing in the home folder" test "$(tree_digest "$HOME")" = "$before"
check "nor in the store" test "$(tree_digest "$CDM_ROOT")" = "$store_before"

run_cdm scan
expect_rc 0 "the table"
expect_err "cop(y|ies) of cuDNN, .*; cdm install and cdm attach would free " "ends with the space to be had"
check "names the store's install for the copies it equals" grep -q "9.1.0.70-cuda12 .*projects/a/.venv" <<<"$OUT"

run_cdm scan "$HOME/projects" --json
check "scan DIR: only what lies there" \
  test "$(json "len(d['copies'])")" = 2

done_testing
