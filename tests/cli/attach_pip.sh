# cdm attach against what the real pip (and uv, where it can be had) does to an attached
# environment: wheels of NVIDIA's nvidia-cudnn layout and RECORD (tests/make_wheel.py)
# force-reinstalled, upgraded, uninstalled, and a second cuDNN distribution with the same
# paths installed over them. After each the store is as installed (cdm verify), the
# environment holds the wheel's own files, and cdm attach and detach say what they found.
. "$TESTS_DIR/cli/lib.sh" || exit 1

PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
if ! "$PY" -m venv "$SCRATCH/probe" >/dev/null 2>&1 || ! "$SCRATCH/probe/bin/python" -m pip --version >/dev/null 2>&1; then
  skip_tool "cdm attach against pip" "python3 -m venv with pip (python3-venv) is not available"
  done_testing
  exit
fi
rm -rf "$SCRATCH/probe"
# Which pip runs the steps: with the argument 'system' (the attach_pip_system test) the
# system's own pip wheel, the one a `python3 -m venv` of Debian's python3 brings (pip 23.0.1
# on Debian 12, which leaves links on uninstall that newer pips remove); else the newest pip
# on the package registry (fetched at most once a day into the test cache), or, when the
# registry cannot be reached and none was fetched, the pip that venv brings.
PIP_WHEEL=${1:-${PIP_WHEEL:-newest}}
if [ "$PIP_WHEEL" = system ]; then
  PIP_WHEEL=$(ls /usr/share/python-wheels/pip-*.whl 2>/dev/null | sort -V | tail -n1)
  if [ -z "$PIP_WHEEL" ]; then
    skip_tool "cdm attach against the system's pip" "no pip wheel in /usr/share/python-wheels (Debian's python3-pip-whl, which python3-venv brings)"
    done_testing
    exit
  fi
elif [ "$PIP_WHEEL" = newest ]; then
  pips=$(test_cache)/pip-newest
  if [ -z "$(find "$pips" -maxdepth 0 -mtime -1 2>/dev/null)" ] && registry_reachable >/dev/null; then
    rm -rf "$pips.part" && mkdir -p "$pips.part" &&
      timeout 60 "$PY" -m pip download --quiet --disable-pip-version-check --retries 1 --timeout 15 \
        --no-deps --only-binary=:all: -d "$pips.part" pip >/dev/null 2>&1 &&
      rm -rf "$pips" && mv "$pips.part" "$pips"
    rm -rf "$pips.part"
  fi
  PIP_WHEEL=$(ls "$pips"/pip-*.whl 2>/dev/null | sort -V | tail -n1)
fi
diag "pip: ${PIP_WHEEL:-the one python3 -m venv brings (the registry could not be reached)}"
run_cdm install "$(fixture cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz --version 9.19.0.56)"
mkdir -p "$SCRATCH/proj"
run_cdm link "$SCRATCH/proj" 9.19
P=$(cd "$SCRATCH/proj" && pwd -P)
W=$SCRATCH/wheels
mkdir -p "$W"
A=$("$PY" "$TESTS_DIR/make_wheel.py" "$W" nvidia-cudnn-cu13 9.19.0.56)
B=$("$PY" "$TESTS_DIR/make_wheel.py" "$W" nvidia-cudnn-cu13 9.19.1.3)
C=$("$PY" "$TESTS_DIR/make_wheel.py" "$W" nvidia-cudnn-cu12 9.19.0.56)

# make_venv DIR: a virtual environment with the pip that $PIP_WHEEL names (a pip wheel,
# e.g. Debian 12's own pip 23.0.1 in /usr/share/python-wheels), else the one venv brings
make_venv() {
  if [ -n "${PIP_WHEEL:-}" ]; then
    "$PY" -m venv --without-pip "$1" &&
      "$1/bin/python" "$PIP_WHEEL/pip" install --quiet --no-index --disable-pip-version-check "$PIP_WHEEL"
  else
    "$PY" -m venv "$1"
  fi
}

# pip_in ENV ARGS...: the environment's own pip, offline, quiet, no byte-code (so that a
# folder's digest says only what the wheels hold)
pip_in() {
  local v=$1
  shift
  "$v/bin/python" -m pip --disable-pip-version-check --no-cache-dir --quiet "$@" 2>"$SCRATCH/pip.err"
}
pip_version() { "$1/bin/python" -m pip --version | cut -d' ' -f2; }
pip_install() { pip_in "$1" install --no-index --no-deps --no-compile "${@:2}"; }
# digest ENV: the environment's nvidia folder: every entry's type, path, size or link target,
# mode, and each file's SHA-256
digest() {
  (cd "$1"/lib/python3*/site-packages/nvidia && find . -printf '%y %p %s %l %m\n' | sort &&
    find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
# store_as_installed: cdm verify of the whole store says every file is as installed
store_as_installed() { "$CDM" verify >"$SCRATCH/verify.out" 2>&1; }
# own_files ENV: the wheel folder holds real files only, none a link
own_files() { test -z "$(find "$(lib_of "$1")" -name 'libcudnn*' -type l)" && test -n "$(find "$(lib_of "$1")" -name 'libcudnn*' -type f)"; }
linked_files() { test "$(find "$(lib_of "$1")" -name 'libcudnn*' -type l | wc -l)" = 8; }
lib_of() { echo "$1"/lib/python3*/site-packages/nvidia/cudnn/lib; }

# fresh_env NAME WHEEL: an environment with pip and the wheel installed by pip, and the
# digest of its site-packages as pip left it (in $SCRATCH/NAME.digest)
fresh_env() {
  local v=$SCRATCH/$1
  rm -rf "$v"
  make_venv "$v" && pip_install "$v" "$2" || return 1
  digest "$v" >"$SCRATCH/$1.digest"
  printf '%s\n' "$v"
}

# ---- pip install --force-reinstall of the attached wheel -----------------------------------
V=$(fresh_env env "$A")
run_cdm attach "$V" "$P"
expect_rc 0 "attach an environment whose wheel pip installed"
check "its 8 cuDNN files are links" linked_files "$V"
check "the store is as installed before pip runs" store_as_installed
pip_install "$V" --force-reinstall "$A"
check "pip install --force-reinstall of the wheel succeeds" test $? -eq 0
check "the store is as installed after it" store_as_installed
check "the environment holds the wheel's own files again" own_files "$V"
check "byte for byte as pip installs them" test "$(digest "$V")" = "$(cat "$SCRATCH/env.digest")"
run_cdm attach "$V" "$P" --json
expect_rc 0 "cdm attach again after the reinstall"
check "says what it found" sh -c 'printf "%s" "$1" | grep -q "8 of its 8 cuDNN files are no longer cdm.s links"' _ "$(json 'd["drift"]')"
check "and attaches the reinstalled files" linked_files "$V"
check "changed is true" test "$(json 'd["changed"]')" = True
run_cdm detach "$V"
expect_rc 0 "detach"
check "the environment is as pip left it" test "$(digest "$V")" = "$(cat "$SCRATCH/env.digest")"

# ---- pip install -U to another version of the wheel ------------------------------------------
V=$(fresh_env env "$A")
run_cdm attach "$V" "$P"
pip_install "$V" -U "$B"
check "pip install -U to 9.19.1.3 succeeds" test $? -eq 0
check "the store is as installed after the upgrade" store_as_installed
check "the environment holds the new wheel's files" own_files "$V"
fresh_env upgraded "$B" >/dev/null
check "byte for byte as a fresh install of 9.19.1.3" \
  test "$(digest "$V")" = "$(cat "$SCRATCH/upgraded.digest")"
run_cdm doctor "$P" --json
check "the project's doctor sees the environment it attached, by its record" \
  sh -c 'printf "%s" "$1" | grep -q "nvidia_cudnn_cu13 9.19.1.3 now and was nvidia_cudnn_cu13 9.19.0.56"' _ "$OUT"
run_cdm detach "$V"
expect_rc 0 "detach after the upgrade"
check "says the wheel changed" sh -c 'printf "%s" "$1" | grep -q "9.19.1.3 now and was nvidia_cudnn_cu13 9.19.0.56"' _ "$ERR"
check "and leaves the new wheel's files" test "$(digest "$V")" = "$(cat "$SCRATCH/upgraded.digest")"
check "nothing is kept beside the user's state" test -z "$(ls -A "$(dirname "$STATE_DB")/.attached")"

# ---- pip uninstall ------------------------------------------------------------------------------
V=$(fresh_env env "$A")
run_cdm attach "$V" "$P"
pip_in "$V" uninstall -y nvidia-cudnn-cu13
check "pip uninstall of the attached wheel succeeds" test $? -eq 0
check "the store is as installed after it" store_as_installed
# pip 23.1 and newer remove cdm's links with the rest; pip 23.0 (Debian 12's) will not remove a
# link that leads out of the environment, and leaves the 8 links and the folder holding them.
check "the wheel's folder is gone, or holds cdm's 8 links alone (pip $(pip_version "$V"))" \
  sh -c 'test ! -e "$1" || test "$(ls -A "$1" | wc -l)" = 8 -a "$(find "$1" -type l | wc -l)" = 8' _ "$(lib_of "$V")"
run_cdm detach "$V" --json
expect_rc 0 "detach of an environment whose wheel was uninstalled"
check "says so" test "$(json 'd["drift"]')" = "the wheel nvidia_cudnn_cu13 9.19.0.56 was uninstalled"
check "and drops the kept files" test "$(json 'd["dropped"], d["restored"]')" = "(8, 0)"
check "after it no link of cdm's is left, and the wheel's folder is gone" test ! -e "$(lib_of "$V")"
check "nothing is kept beside the user's state" test -z "$(ls -A "$(dirname "$STATE_DB")/.attached")"
run_cdm detach "$V"
expect_rc 1 "a second detach has nothing to settle"
expect_err "has no cuDNN wheel folder" "and says there is no wheel"

# ---- a second cuDNN distribution with the same paths -----------------------------------------
V=$(fresh_env env "$A")
run_cdm attach "$V" "$P"
pip_install "$V" "$C"
check "pip install of nvidia-cudnn-cu12 beside the attached -cu13 succeeds" test $? -eq 0
check "the store is as installed after it" store_as_installed
check "the environment holds -cu12's files" own_files "$V"
run_cdm attach "$V" "$P"
expect_rc 0 "attach again"
check "says what changed" sh -c 'printf "%s" "$1" | grep -Eq "had changed since it was attached: (.* are no longer cdm.s links|the wheel is .* now and was)"' _ "$ERR"
check "and links the files again" linked_files "$V"
run_cdm detach "$V"
check "the store is as installed at the end" store_as_installed

# ---- uv ---------------------------------------------------------------------------------------
# uv from the package registry into a tools environment, where it can be had.
UV=$(command -v uv || true)
if [ -z "$UV" ]; then
  tools=$(test_cache)/uv
  uv_why="uv is not installed and could not be had from the package registry within 120 s"
  if [ ! -x "$tools/bin/uv" ] && ! why=$(registry_reachable); then
    uv_why="uv is not installed, and $why"
  elif [ ! -x "$tools/bin/uv" ]; then
    # one install at a time (attach_pip and attach_pip_system run side by side)
    (
      flock 9
      [ -x "$tools/bin/uv" ] && exit 0
      rm -rf "$tools"
      # shellcheck disable=SC2015 # the fallback is meant to run when either step fails
      "$PY" -m venv "$tools" >/dev/null 2>&1 &&
        timeout 120 "$tools/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 15 uv >/dev/null 2>&1 ||
        rm -rf "$tools"
    ) 9>"$tools.lock"
  fi
  [ -x "$tools/bin/uv" ] && UV=$tools/bin/uv
fi
if [ -z "$UV" ]; then
  skip_tool "cdm attach against uv" "$uv_why"
else
  export UV_NO_CACHE=1 UV_OFFLINE=1
  V=$(fresh_env env "$A")
  run_cdm attach "$V" "$P"
  "$UV" pip install --quiet --python "$V/bin/python" --reinstall --no-deps "$A" 2>"$SCRATCH/uv.err"
  check "uv pip install --reinstall of the attached wheel succeeds" test $? -eq 0
  check "the store is as installed after it" store_as_installed
  check "the environment holds the wheel's own files" own_files "$V"
  run_cdm attach "$V" "$P"
  expect_rc 0 "attach again after uv"
  "$UV" pip uninstall --quiet --python "$V/bin/python" nvidia-cudnn-cu13 2>>"$SCRATCH/uv.err"
  check "uv pip uninstall of the attached wheel succeeds" test $? -eq 0
  check "the store is as installed after it" store_as_installed
  run_cdm detach "$V"
  expect_rc 0 "detach after uv uninstalled the wheel"
  [ "$FAILED" -eq 0 ] || diag "$(cat "$SCRATCH/uv.err")"
fi
# ---- NVIDIA's real wheel ----------------------------------------------------------------------
# nvidia-cudnn-cu12 9.1.0.70 from the package registry (665 MB, cached in
# $CDM_WHEEL_CACHE), its real files and RECORD, through the same pip steps.
WC=$(wheel_cache)
real=$WC/nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl
real_why="nvidia-cudnn-cu12 9.1.0.70 could not be had from the package registry within 300 s"
if [ ! -f "$real" ] && ! why=$(registry_reachable); then
  real_why="nvidia-cudnn-cu12 9.1.0.70 is not cached, and $why"
elif [ ! -f "$real" ]; then
  mkdir -p "$WC" && timeout 300 "$PY" -m pip download --quiet --disable-pip-version-check --retries 1 --timeout 15 \
    --no-deps --only-binary=:all: -d "$WC" nvidia-cudnn-cu12==9.1.0.70 >"$SCRATCH/download.log" 2>&1
fi
if [ ! -f "$real" ]; then
  skip_tool "attach against pip with NVIDIA's real wheel" "$real_why"
else
  run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz --version 9.1.0.70)"
  mkdir -p "$SCRATCH/proj12"
  run_cdm link "$SCRATCH/proj12" 9.1.0.70-cuda12
  V=$(fresh_env real "$real")
  check "pip installs NVIDIA's wheel" own_files "$V"
  run_cdm attach "$V" "$SCRATCH/proj12" --json
  expect_rc 0 "attach the environment of NVIDIA's real wheel"
  check "its 8 cuDNN libraries are cdm's links" linked_files "$V"
  pip_install "$V" --force-reinstall "$real"
  check "pip install --force-reinstall of the real wheel succeeds" test $? -eq 0
  check "the store is as installed after it" store_as_installed
  check "the environment holds the wheel's own files, byte for byte as pip installs them" \
    test "$(digest "$V")" = "$(cat "$SCRATCH/real.digest")"
  run_cdm attach "$V" "$SCRATCH/proj12"
  check "attach again says what changed and links them again" \
    sh -c 'printf "%s" "$1" | grep -q "are no longer cdm.s links" && test "$(find "$2" -name "libcudnn*" -type l | wc -l)" = 8' _ "$ERR" "$(lib_of "$V")"
  pip_in "$V" uninstall -y nvidia-cudnn-cu12
  check "pip uninstall of the real wheel succeeds" test $? -eq 0
  check "the store is as installed after it" store_as_installed
  run_cdm detach "$V"
  expect_rc 0 "and detach settles the record"
  rm -rf "$V"
fi
[ "$FAILED" -eq 0 ] || diag "$(cat "$SCRATCH/verify.out" "$SCRATCH/pip.err" 2>/dev/null)"

done_testing
