# cdm install DIR: a cuDNN already on the disk, copied into the store: a venv's wheel (by
# the venv, its site-packages or nvidia/cudnn itself, checked against the wheel's RECORD),
# a CUDA-style folder with cuDNN copied in among other libraries, the Windows installer's
# tree; the folder itself left as it was.
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_real_cudnn.sh"

PY=$(command -v python3) || { skip_tool "folders" "no python3 to write wheels"; done_testing; exit; }
if ! "$PY" -m venv "$SCRATCH/venv" >/dev/null 2>&1; then
  skip_tool "folders" "python3 cannot make a venv (python3-venv)"
  done_testing
  exit
fi
mkdir -p "$SCRATCH/wheels"
whl=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu12 9.1.0.70)
"$SCRATCH/venv/bin/python" -m pip install -q --no-deps --no-index --disable-pip-version-check "$whl" ||
  { not_ok "pip installs the wheel into the venv"; done_testing; exit 1; }
site=$(echo "$SCRATCH"/venv/lib/python3*/site-packages)
venv_before=$(tree_digest "$SCRATCH/venv")

run_cdm install "$SCRATCH/venv" --json
expect_rc 0 "a venv's cuDNN wheel installs from the venv's folder"
check "as 9.1.0.70-cuda12 (the dist-info's version and name), from a folder" \
  test "$(json 'd["id"], d["source"], d["changed"]')" = "('9.1.0.70-cuda12', 'folder', True)"
store=$CDM_ROOT/9.1.0.70-cuda12
check "its libraries in lib/, its header in include/" \
  test -f "$store/lib/libcudnn_ops.so.9" -a -f "$store/include/cudnn_version.h"
check "only cuDNN's files: no __init__.py" test -z "$(find "$store" -name '__init__.py')"
check "the venv is as it was" test "$(tree_digest "$SCRATCH/venv")" = "$venv_before"
run_cdm verify
expect_rc 0 "verify passes"
for d in "$site" "$site/nvidia/cudnn"; do
  run_cdm install "$d" --json
  expect_rc 0 "the same wheel by its folder '${d#"$SCRATCH"/}'"
  check "is the same install" test "$(json 'd["changed"]')" = False
done
run_cdm install "$whl"
expect_err "with the same library bytes" "the wheel file itself: the same library bytes, the same install"

# A file changed in the venv since pip installed it: RECORD says so.
rm_store "$CDM_ROOT"
chmod u+w "$site/nvidia/cudnn/lib/libcudnn_ops.so.9"
printf 'x' >>"$site/nvidia/cudnn/lib/libcudnn_ops.so.9"
run_cdm install "$SCRATCH/venv"
expect_rc 1 "a venv whose library was changed after pip installed it is refused"
expect_err "libcudnn_ops.so.9' was changed since it was installed" "naming the file"
check "nothing is installed" test ! -e "$store"
check "nothing is left in .staging" empty_dir "$CDM_ROOT/.staging"

# A conda environment: its prefix's lib/ and include/, described by conda-meta's record
# (version, cuda-version, paths_data), as conda leaves it.
rm_store "$CDM_ROOT"
env=$SCRATCH/miniconda3/envs/e
mkdir -p "$env/conda-meta"
"$PY" - "$whl" "$env" <<'PY'
import hashlib, json, os, sys, zipfile
z, env = zipfile.ZipFile(sys.argv[1]), sys.argv[2]
paths = []
for n in z.namelist():
    if n.startswith("nvidia/cudnn/") and not n.endswith("__init__.py"):
        rel = n[len("nvidia/cudnn/"):]
        os.makedirs(os.path.dirname(os.path.join(env, rel)), exist_ok=True)
        data = z.read(n)
        open(os.path.join(env, rel), "wb").write(data)
        paths.append({"_path": rel, "path_type": "hardlink", "sha256": hashlib.sha256(data).hexdigest(),
                      "size_in_bytes": len(data)})
record = {"name": "cudnn", "version": "9.1.0.70", "build": "h0_cuda12", "subdir": "linux-64",
          "depends": ["cuda-version >=12.0,<13.0a0"], "files": [p["_path"] for p in paths],
          "paths_data": {"paths": paths, "paths_version": 1}}
json.dump(record, open(os.path.join(env, "conda-meta", "cudnn-9.1.0.70-h0_cuda12.json"), "w"))
PY
run_cdm install "$env" --json
expect_rc 0 "a conda environment's cudnn installs from its prefix"
check "as 9.1.0.70-cuda12: conda-meta's version and cuda-version" \
  test "$(json 'd["id"], d["source"]')" = "('9.1.0.70-cuda12', 'folder')"
rm_store "$CDM_ROOT"
chmod u+w "$env/lib/libcudnn_graph.so.9"
printf 'x' >>"$env/lib/libcudnn_graph.so.9"
run_cdm install "$env"
expect_rc 1 "a library changed since conda installed it is refused"
expect_err "libcudnn_graph.so.9' was changed since it was installed" "naming it"
rm_store "$CDM_ROOT"

# A CUDA-style folder (a toolkit with cuDNN copied in): only cuDNN's files are taken.
tk=$SCRATCH/cuda
mkdir -p "$tk/include" "$tk/lib64"
"$PY" - "$whl" "$tk" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith("nvidia/cudnn/") and not n.endswith("__init__.py"):
        part = n[len("nvidia/cudnn/"):].replace("lib/", "lib64/", 1)
        open(f"{sys.argv[2]}/{part}", "wb").write(z.read(n))
PY
mv "$tk/lib64/libcudnn.so.9" "$tk/lib64/libcudnn.so.9.1.0"
ln -s libcudnn.so.9.1.0 "$tk/lib64/libcudnn.so.9"
ln -s libcudnn.so.9 "$tk/lib64/libcudnn.so"
echo "not cuDNN" >"$tk/lib64/libcublas.so.12"
echo "/* not cuDNN */" >"$tk/include/cuda.h"
run_cdm install "$tk"
expect_rc 2 "a folder that does not say its build number"
expect_err "holds cuDNN 9.1.0 but does not say its build .*--build N" "is asked for it"
run_cdm install "$tk" --build 70
expect_rc 2 "nor its CUDA major"
expect_err "give it with --cuda N" "is asked for that"
run_cdm install "$tk" --build 70 --cuda 12 --json
expect_rc 0 "with --build and --cuda it installs"
check "as 9.1.0.70-cuda12 from a folder" test "$(json 'd["id"], d["source"]')" = "('9.1.0.70-cuda12', 'folder')"
check "the toolkit's lib64 kept, with the chain of links" \
  test "$(readlink "$store/lib64/libcudnn.so")" = libcudnn.so.9 -a "$(readlink "$store/lib64/libcudnn.so.9")" = libcudnn.so.9.1.0
check "no other library, no other header" test ! -e "$store/lib64/libcublas.so.12" -a ! -e "$store/include/cuda.h"
run_cdm list --json
check "lib64 is the recorded library folder" test "$(json 'd[0]["lib_dir"]')" = lib64
run_cdm install "$whl" --json
check "the wheel of the same bytes is the same install" test "$(json 'd["changed"]')" = False

# The Windows installer's tree: {bin,include,lib}/<CUDA major.minor>/[x64].
rm_store "$CDM_ROOT"
winwhl=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu12 9.14.0.64 --windows)
win13=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu13 9.14.0.64 --windows)
tree=$SCRATCH/CUDNN/v9.14
for pair in "12.9:$winwhl" "13.0:$win13"; do
  cuda=${pair%%:*} w=${pair#*:}
  mkdir -p "$tree/bin/$cuda" "$tree/include/$cuda" "$tree/lib/$cuda/x64"
  "$PY" - "$w" "$tree" "$cuda" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith("nvidia/cudnn/") and not n.endswith("__init__.py"):
        kind, name = n[len("nvidia/cudnn/"):].split("/", 1)
        open(f"{sys.argv[2]}/{kind}/{sys.argv[3]}/{name}", "wb").write(z.read(n))
PY
  echo "import library" >"$tree/lib/$cuda/x64/cudnn.lib"
done
run_cdm install "$tree" --platform windows-x86_64 --build 64
expect_rc 1 "the installer's tree with CUDA 12.9 and 13.0"
expect_err "holds cuDNN for several CUDA versions; choose one with --cuda N" "asks which"
run_cdm install "$tree" --platform windows-x86_64 --build 64 --cuda 13 --json
expect_rc 0 "--cuda 13 takes its 13.0 folder"
check "as 9.14.0.64-cuda13" test "$(json 'd["id"]')" = 9.14.0.64-cuda13
check "bin/ and lib/x64 as the archives have them" \
  test "$(ls "$CDM_ROOT/9.14.0.64-cuda13/bin" | grep -c 'dll$')" -eq 8 -a -f "$CDM_ROOT/9.14.0.64-cuda13/lib/x64/cudnn.lib"
run_cdm install "$win13" --platform windows-x86_64 --json
check "the 13.0 wheel's DLLs are the same install" test "$(json 'd["changed"]')" = False

run_cdm install "$SCRATCH/wheels"
expect_rc 1 "a folder without cuDNN"
expect_err "no cuDNN in '$SCRATCH/wheels'" "is named"

# NVIDIA's real wheel as pip lays it out in a site-packages.
real=$(real_wheel manylinux2014_x86_64 2>"$SCRATCH/real.err")
if [ -z "$real" ]; then
  skip_tool "NVIDIA's real wheel as a venv's folder" "$(tail -1 "$SCRATCH/real.err")"
else
  rm_store "$CDM_ROOT"
  mkdir -p "$SCRATCH/real-site"
  "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$real" "$SCRATCH/real-site"
  run_cdm install "$SCRATCH/real-site" --json
  expect_rc 0 "NVIDIA's real wheel, unpacked in a site-packages, installs as a folder"
  check "as 9.1.0.70-cuda12" test "$(json 'd["id"]')" = 9.1.0.70-cuda12
  run_cdm verify
  expect_rc 0 "and verifies"
  rm -rf "$SCRATCH/real-site"
fi

done_testing
