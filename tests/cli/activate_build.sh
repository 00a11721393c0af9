# What activation gives C/C++ builds, in real shells and a real CMake: CUDNN_ROOT and
# CUDNN_ROOT_DIR always, CMAKE_PREFIX_PATH, CPATH and LIBRARY_PATH with [activate]
# build_paths, LD_AUDIT with [activate] redirect; and activate then deactivate gives back the
# environment byte for byte (an unset variable unset, an empty one empty) in bash, zsh, dash
# and fish.
. "$TESTS_DIR/cli/lib.sh"

PATH="$(dirname "$CDM"):$PATH"
export PATH
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
mkdir -p "$SCRATCH/w/my project"
P=$(cd "$SCRATCH/w/my project" && pwd -P)
"$CDM" link -q "$P" 9.1
STORE=$(cd "$CDM_ROOT/9.1.0.70-cuda12" && pwd -P)
export P STORE
all_on() { printf '[activate]\nbuild_paths = true\nredirect = true\n' >"$CDM_CONFIG"; }

# The environment each shell starts from: one build list set, one empty, one unset, a
# CUDNN_ROOT of the user's own, an audit library already there.
export CMAKE_PREFIX_PATH=/opt/x CPATH='' CUDNN_ROOT=/mine LD_AUDIT=
unset LIBRARY_PATH CUDNN_ROOT_DIR CDM_REDIRECT_DIR
D=$SCRATCH/dumps
mkdir -p "$D"
export D
# `env` of the shell, less what each command changes by itself
posix_cycle='
cd "$P" || exit 1
env | grep -v "^_=" | LC_ALL=C sort >"$D/before"
eval "$(cdm activate)" || exit 1
env | grep -v "^_=" | LC_ALL=C sort >"$D/during"
eval "$(cdm activate)" && eval "$(cdm deactivate)" || exit 1
env | grep -v "^_=" | LC_ALL=C sort >"$D/after"
'
fish_cycle='
cd $P; or exit 1
env | grep -v "^_=" | LC_ALL=C sort >$D/before
cdm activate --shell fish | source; or exit 1
env | grep -v "^_=" | LC_ALL=C sort >$D/during
cdm activate --shell fish | source; cdm deactivate --shell fish | source
env | grep -v "^_=" | LC_ALL=C sort >$D/after
'
var() { sed -n "s|^$1=||p" "$D/during"; }
all_on
for sh in bash zsh dash fish; do
  if ! command -v "$sh" >/dev/null 2>&1; then
    skip_tool "$sh: activate and deactivate give back the environment" "$sh is not installed"
    continue
  fi
  rm -f "$D"/*
  if [ "$sh" = fish ]; then
    SHELL=fish fish -c "$fish_cycle"
  else
    SHELL=$sh "$sh" -c "$posix_cycle"
  fi
  check "$sh: CUDNN_ROOT and CUDNN_ROOT_DIR are the project's link" \
    test "$(var CUDNN_ROOT)|$(var CUDNN_ROOT_DIR)" = "$P/cuda_link|$P/cuda_link"
  check "$sh: the build paths are first in their lists" \
    test "$(var CMAKE_PREFIX_PATH)|$(var CPATH)|$(var LIBRARY_PATH)" = \
    "$P/cuda_link:/opt/x|$P/cuda_link/include|$P/cuda_link/lib"
  check "$sh: LD_AUDIT holds cdm-audit.so, the redirect the lib folder" \
    sh -c 'case "$1" in */cdm-audit.so) test "$2" = "$P/cuda_link/lib" ;; *) false ;; esac' _ \
    "$(var LD_AUDIT)" "$(var CDM_REDIRECT_DIR)"
  if [ -s "$D/before" ] && cmp -s "$D/before" "$D/after"; then
    ok "$sh: activate, again, deactivate: env is byte for byte what it was"
  else
    not_ok "$sh: activate, again, deactivate: env is byte for byte what it was"
    diag "$(diff "$D/before" "$D/after" 2>&1)"
  fi
done
: >"$CDM_CONFIG"

# A real CMake: the install's header and library, found through CUDNN_ROOT_DIR (as
# FindCUDNN.cmake modules look) and, with build_paths, through CMAKE_PREFIX_PATH alone.
if ! command -v cmake >/dev/null 2>&1; then
  skip_tool "CMake finds the install's cudnn.h and libcudnn.so after activation" "cmake is not installed"
  done_testing
  exit
fi
mkdir -p "$SCRATCH/cm/hints" "$SCRATCH/cm/prefix"
cat >"$SCRATCH/cm/hints/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.10)
project(hints NONE)
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS $ENV{CUDNN_ROOT_DIR} PATH_SUFFIXES include
          NO_CMAKE_ENVIRONMENT_PATH)
find_library(CUDNN_LIBRARY cudnn HINTS $ENV{CUDNN_ROOT_DIR} PATH_SUFFIXES lib lib64
             NO_CMAKE_ENVIRONMENT_PATH)
file(WRITE "${CMAKE_BINARY_DIR}/found" "${CUDNN_INCLUDE_DIR}\n${CUDNN_LIBRARY}\n")
CM
cat >"$SCRATCH/cm/prefix/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.10)
project(prefix NONE)
find_path(CUDNN_INCLUDE_DIR cudnn.h)
find_library(CUDNN_LIBRARY cudnn)
file(WRITE "${CMAKE_BINARY_DIR}/found" "${CUDNN_INCLUDE_DIR}\n${CUDNN_LIBRARY}\n")
CM
# cmake_found NAME: configure cm/NAME in a fresh build folder, print what it found, resolved
cmake_found() {
  rm -rf "$SCRATCH/cm/b-$1"
  cmake -S "$SCRATCH/cm/$1" -B "$SCRATCH/cm/b-$1" >"$SCRATCH/cm/log" 2>&1 || { cat "$SCRATCH/cm/log" >&2; return 1; }
  while read -r f; do
    case $f in *NOTFOUND) echo "$f" ;; *) realpath "$f" ;; esac
  done <"$SCRATCH/cm/b-$1/found"
}
want=$(printf '%s\n' "$STORE/include" "$STORE/lib/libcudnn.so.9.1.0")
cd "$P" || exit 1
OUT=$(eval "$("$CDM" activate --shell bash)" && cmake_found hints)
check "CMake: find_path/find_library with HINTS \$ENV{CUDNN_ROOT_DIR} find the install's" \
  test "$OUT" = "$want"
[ "$OUT" = "$want" ] || diag "found:" "$OUT"
OUT=$(unset CMAKE_PREFIX_PATH && eval "$("$CDM" activate --shell bash)" && cmake_found prefix)
check "CMake: without build_paths, no hint finds no install's file" \
  sh -c '! printf "%s\n" "$1" | grep -q "^$2/"' _ "$OUT" "$STORE"
OUT=$(unset CMAKE_PREFIX_PATH && printf '[activate]\nbuild_paths = true\n' >"$CDM_CONFIG" &&
  eval "$("$CDM" activate --shell bash)" && cmake_found prefix)
: >"$CDM_CONFIG"
check "CMake: with build_paths, CMAKE_PREFIX_PATH alone finds the install's" test "$OUT" = "$want"
[ "$OUT" = "$want" ] || diag "found:" "$OUT"

done_testing
