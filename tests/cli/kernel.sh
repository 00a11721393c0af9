# cdm kernel install / remove with the real jupyter_client and ipykernel (from the package
# registry, cached): the kernelspec is listed by `jupyter kernelspec list`, a kernel started
# from it by jupyter_client maps the project's stand-in cuDNN (read from /proc/self/maps)
# even where the notebook's code opens another copy by its path, and remove takes away only
# what cdm wrote.
. "$TESTS_DIR/cli/lib.sh" || exit 1

CC=${CC:-cc}
PY=$(python3 -c 'import sys, ctypes; print(sys.executable)' 2>/dev/null)
if ! command -v "$CC" >/dev/null 2>&1 || [ -z "$PY" ]; then
  skip_tool "cdm kernel" "no C compiler ($CC) to build stand-ins, or no python3 with ctypes"
  done_testing
  exit
fi
# jupyter_client and ipykernel in an environment of their own, made once
JV=$(test_cache)/jupyter
why="jupyter_client and ipykernel could not be had from the package registry within 240 s"
if [ ! -x "$JV/bin/jupyter-kernelspec" ] || ! "$JV/bin/python" -c 'import ipykernel' 2>/dev/null; then
  rm -rf "$JV"
  why=$(registry_reachable) ||
    { skip_tool "cdm kernel with jupyter_client" "jupyter_client and ipykernel are not cached, and $why"; done_testing; exit; }
  # shellcheck disable=SC2015 # the fallback is meant to run when either step fails
  "$PY" -m venv "$JV" >/dev/null 2>&1 &&
    timeout 240 "$JV/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 15 \
      jupyter_client ipykernel >"$SCRATCH/pip.log" 2>&1 || rm -rf "$JV"
fi
if [ ! -x "$JV/bin/jupyter-kernelspec" ]; then
  skip_tool "cdm kernel with jupyter_client" "$why"
  done_testing
  exit
fi
unset CUDA_HOME CONDA_PREFIX VIRTUAL_ENV LD_AUDIT
export LD_LIBRARY_PATH="" JUPYTER_DATA_DIR=$SCRATCH/jupyter JUPYTER_PLATFORM_DIRS=1
W=$SCRATCH/work
mkdir -p "$W"
. "$TESTS_DIR/cli/lib_stub_cudnn.sh" || exit 1
install 9.1.0.70 12 90100 || not_ok "stand-in 9.1.0.70 installs"
O=$SCRATCH/other
tree "$O" 9.0.0 90000
mkdir -p "$SCRATCH/proj_a"
"$CDM" link "$SCRATCH/proj_a" 9.1 >/dev/null
P=$(cd "$SCRATCH/proj_a" && pwd -P)
A=$(cd "$CDM_ROOT/9.1.0.70-cuda12/lib" && pwd -P)

run_cdm kernel install "$P" --python "$JV/bin/python" --json
expect_rc 0 "cdm kernel install"
check "named after the project" test "$(json 'd["name"]')" = cdm-proj_a
check "its display name names the project and the version" \
  test "$(json 'd["display_name"]')" = "Python (proj_a, cuDNN 9.1.0.70-cuda12)"
spec=$JUPYTER_DATA_DIR/kernels/cdm-proj_a/kernel.json
check "kernel.json starts the kernel through cdm exec" \
  test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["argv"][1:5])' "$spec")" = "['exec', '$P', '--', '$JV/bin/python']"
check "jupyter kernelspec list shows it" \
  sh -c '"$1" list --json | python3 -c "import json,sys; sys.exit(0 if \"cdm-proj_a\" in json.load(sys.stdin)[\"kernelspecs\"] else 1)"' _ "$JV/bin/jupyter-kernelspec"
run_cdm kernel install "$P" --python "$JV/bin/python"
expect_rc 0 "installing it again"
expect_err "kept the Jupyter kernel 'cdm-proj_a'" "changes nothing and says so"

# a kernel started by jupyter_client from it, running a notebook cell
cat >"$W/run_kernel.py" <<'PY'
import sys
from jupyter_client.manager import start_new_kernel

km, kc = start_new_kernel(kernel_name=sys.argv[1], startup_timeout=90)
code = (
    "import ctypes, os\n"
    f"lib = ctypes.CDLL({sys.argv[2]!r})\n"
    "print('version', lib.cudnnGetVersion())\n"
    "print('\\n'.join('map ' + m for m in sorted({os.path.realpath(l.split()[-1]) "
    "for l in open('/proc/self/maps') if 'libcudnn' in l})))\n"
)
kc.execute(code)
out = []
while True:
    msg = kc.get_iopub_msg(timeout=60)
    if msg["msg_type"] == "stream":
        out.append(msg["content"]["text"])
    if msg["msg_type"] == "error":
        out.append("error " + msg["content"]["ename"])
    if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle" and out:
        break
kc.stop_channels()
km.shutdown_kernel(now=True)
print("".join(out), end="")
PY
OUT=$(cd "$SCRATCH" && timeout 150 "$JV/bin/python" "$W/run_kernel.py" cdm-proj_a "$O/lib/libcudnn.so.9" 2>"$SCRATCH/kernel.err")
RC=$?
expect_rc 0 "jupyter_client starts a kernel from the kernelspec and runs a cell"
check "the cell's library opened by another copy's path answers 90100: the project's" \
  test "$(printf '%s\n' "$OUT" | sed -n 's/^version //p')" = 90100
check "every cuDNN library the kernel maps is the install's" \
  sh -c 'test -n "$1" && ! printf "%s\n" "$1" | grep -v "^$2/"' _ "$(printf '%s\n' "$OUT" | sed -n 's/^map //p')" "$A"
[ "$FAILED" -eq 0 ] || diag "$OUT" "$(tail -20 "$SCRATCH/kernel.err")"

# remove: only what cdm wrote
mkdir -p "$JUPYTER_DATA_DIR/kernels/other"
printf '{"argv": ["python3"], "display_name": "other", "language": "python"}\n' \
  >"$JUPYTER_DATA_DIR/kernels/other/kernel.json"
run_cdm kernel remove other
expect_rc 1 "a kernelspec cdm did not write is not removed"
expect_err "is not a kernelspec cdm wrote" "saying so"
check "and it is still there" test -f "$JUPYTER_DATA_DIR/kernels/other/kernel.json"
run_cdm kernel install "$P" --python "$JV/bin/python" --name other
expect_rc 1 "nor overwritten by an install of that name"
run_cdm kernel remove cdm-proj_a
expect_rc 0 "cdm kernel remove"
check "its folder is gone" test ! -e "$JUPYTER_DATA_DIR/kernels/cdm-proj_a"
run_cdm kernel install "$P" --python "$JV/bin/python" --prefix "$SCRATCH/prefix"
check "--prefix writes under PREFIX/share/jupyter/kernels" test -f "$SCRATCH/prefix/share/jupyter/kernels/cdm-proj_a/kernel.json"
run_cdm kernel install "$P" --name 'bad name'
expect_rc 2 "a name Jupyter cannot take is refused as a usage error"
# '.' and '..' are Jupyter's letters but name kernels/ itself and its parent
run_cdm kernel install "$P" --python "$JV/bin/python" --name ..
expect_rc 2 "--name .. is refused"
check "and nothing is written above kernels/" test ! -e "$JUPYTER_DATA_DIR/kernel.json"
run_cdm kernel install "$P" --python "$JV/bin/python" --name .
expect_rc 2 "--name . is refused"
check "and nothing is written into kernels/ itself" test ! -e "$JUPYTER_DATA_DIR/kernels/kernel.json"
run_cdm kernel remove ..
check "kernel remove .. is refused" test "$RC" -ne 0
check "and kernels/, with the kernelspec cdm did not write, is still there" \
  test -f "$JUPYTER_DATA_DIR/kernels/other/kernel.json"
# a kernel.json that is a link, even to a file bearing cdm's mark, is refused, not followed
printf '{"argv": [], "metadata": {"cdm": {}}}\n' >"$SCRATCH/victim.json"
mkdir -p "$JUPYTER_DATA_DIR/kernels/linked"
ln -s "$SCRATCH/victim.json" "$JUPYTER_DATA_DIR/kernels/linked/kernel.json"
run_cdm kernel install "$P" --python "$JV/bin/python" --name linked
expect_rc 1 "kernel install over a kernel.json that is a link is refused"
expect_err "is a kernelspec whose kernel.json is a link" "saying so"
run_cdm kernel remove linked
check "kernel remove leaves it too" test "$RC" -ne 0 -a -L "$JUPYTER_DATA_DIR/kernels/linked/kernel.json"
check "and the file it leads to is unchanged" test "$(cat "$SCRATCH/victim.json")" = '{"argv": [], "metadata": {"cdm": {}}}'

done_testing
