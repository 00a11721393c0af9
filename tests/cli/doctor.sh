# cdm doctor on stand-in cuDNN libraries, a stand-in NVML and a test CUDA_PATH.
. "$TESTS_DIR/cli/lib.sh"

CC=${CC:-cc}
if ! command -v "$CC" >/dev/null 2>&1; then
  skip_tool "cdm doctor on stand-in libraries" "no C compiler ($CC) to build them"
  done_testing
  exit
fi
unset CUDA_HOME
export LD_LIBRARY_PATH=""
W=$SCRATCH/work
mkdir -p "$W"

# stub OUT.so [cc flags]: a stand-in cuDNN (tests/stub_cudnn.c) built with those -D values
stub() {
  local out=$1
  shift
  "$CC" -shared -fPIC -o "$out" "$TESTS_DIR/stub_cudnn.c" "$@"
}

# archive A.B.C.D CUDA [cc flags]: a layout-C archive whose libraries are stand-ins
archive() {
  local ver=$1 cuda=$2
  shift 2
  local major minor patch
  IFS=. read -r major minor patch _ <<<"$ver"
  local name="cudnn-linux-x86_64-${ver}_cuda${cuda}-archive"
  local top=$W/$name
  rm -rf "$top"
  mkdir -p "$top/include" "$top/lib"
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' \
    "$major" "$minor" "$patch" >"$top/include/cudnn_version.h"
  cp "$top/include/cudnn_version.h" "$top/include/cudnn.h"
  stub "$top/lib/libcudnn.so.$major.$minor.$patch" "-Wl,-soname,libcudnn.so.$major" \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN' "$@" || return 1
  ln -s "libcudnn.so.$major.$minor.$patch" "$top/lib/libcudnn.so.$major"
  ln -s "libcudnn.so.$major" "$top/lib/libcudnn.so"
  # every sub-library cuDNN opens by name, with its soname and RUNPATH $ORIGIN, as NVIDIA's
  local sub subs="graph ops cnn adv heuristic engines_precompiled engines_runtime_compiled"
  [ "$major" = 8 ] && subs="ops_infer ops_train cnn_infer cnn_train adv_infer adv_train"
  for sub in $subs; do
    local built=$W/subs/libcudnn_$sub.so.$major
    if [ ! -f "$built" ]; then
      mkdir -p "$W/subs"
      stub "$built" -DSTUB_SUB "-Wl,-soname,libcudnn_$sub.so.$major" \
        -Wl,--enable-new-dtags,-rpath,'$ORIGIN' || return 1
    fi
    cp "$built" "$top/lib/libcudnn_$sub.so.$major.$minor.$patch"
    ln -s "libcudnn_$sub.so.$major.$minor.$patch" "$top/lib/libcudnn_$sub.so.$major"
  done
  echo "stand-in" >"$top/LICENSE"
  tar -C "$W" -cJf "$W/$name.tar.xz" "$name"
  printf '%s\n' "$W/$name.tar.xz"
}

# project DIR ID: link and pin by hand (cdm link is not needed for the doctor)
project() {
  mkdir -p "$1"
  ln -sfn "$CDM_ROOT/$2" "$1/cuda_link"
  echo "$2" >"$1/.cudnn-version"
}

# status NAME: the status of one check in the last --json output
status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
detail() { json "[c['detail'] for c in d['checks'] if c['name'] == '$1'][0]"; }
fixtext() { json "[c['fix'] for c in d['checks'] if c['name'] == '$1'][0]"; }

# A toolkit and a driver, both stand-ins.
export CUDA_PATH=$SCRATCH/cuda
mkdir -p "$CUDA_PATH"
printf '{\n  "cuda": {"name": "CUDA SDK", "version": "12.4.1"},\n  "cuda_cudart": {"version": "12.4.127"}\n}\n' >"$CUDA_PATH/version.json"
mkdir -p "$SCRATCH/driver" "$SCRATCH/nodriver" "$SCRATCH/olddriver"
"$CC" -shared -fPIC -o "$SCRATCH/driver/libnvidia-ml.so.1" "$TESTS_DIR/stub_nvml.c"
"$CC" -shared -fPIC -o "$SCRATCH/olddriver/libnvidia-ml.so.1" -DSTUB_DRIVER='"535.54.03"' "$TESTS_DIR/stub_nvml.c"
export CDM_DRIVER_LIB_PATH=$SCRATCH/driver

# ---- store only ----------------------------------------------------------------------
cd "$SCRATCH" || exit 1
run_cdm doctor --json
expect_rc 0 "doctor with no store and no project succeeds"
check "it skips the store and the project, with reasons" \
  test "$(json '[c["status"] for c in d["checks"] if c["name"] in ("store.index", "project")], d["project"], d["install"]')" = "(['skip', 'skip'], None, None)"

# ---- a matching stand-in -------------------------------------------------------------
good=$(archive 9.1.0.70 12 -DSTUB_VERSION=90100)
run_cdm install "$good"
expect_rc 0 "a stand-in 9.1.0.70 installs"
project "$SCRATCH/p1" 9.1.0.70-cuda12
cd "$SCRATCH/p1" || exit 1
export LD_LIBRARY_PATH=$SCRATCH/p1/cuda_link/lib
run_cdm doctor --json
expect_rc 0 "doctor on a matching stand-in passes"
check "--json has ok, and each check name, status, detail, fix" \
  test "$(json 'd["ok"], all(set(c) == {"name", "status", "detail", "fix"} for c in d["checks"]), d["project"], d["install"]')" = "(True, True, '$SCRATCH/p1', '9.1.0.70-cuda12')"
check "the layers come in order" \
  test "$(json '[c["name"].split(".")[0] for c in d["checks"]][:12]')" = "['store', 'store', 'store', 'project', 'project', 'project', 'library', 'library', 'library', 'library', 'deps', 'deps']"
check "store.index passes SQLite's integrity check" test "$(status store.index)" = ok
check "project.link and project.pin agree" test "$(status project.link)$(status project.pin)" = okok
check "a hand-made link has no recorded generation: warn" test "$(status project.history)" = warn
check "library.version decodes 90100 as 9.1.0" \
  sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q "90100 (9.1.0)"' _ "$(status library.version)" "$(detail library.version)"
check "library.cudart reports CUDA 12.4" sh -c 'printf "%s" "$1" | grep -q "12040: built with CUDA 12.4"' _ "$(detail library.cudart)"
check "library.handle: cudnnCreate succeeds, named by cudnnGetErrorString" \
  sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q CUDNN_STATUS_SUCCESS' _ "$(status library.handle)" "$(detail library.handle)"
check "deps: libcudnn.so.9 and libcudnn_graph.so.9 imports found" \
  test "$(status deps.libcudnn.so.9)$(status deps.libcudnn_graph.so.9)" = okok
check "shadowing: the activated project's folder comes first" test "$(status shadowing)" = ok
check "driver from the stand-in NVML" sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q "driver 550.54.15"' _ "$(status driver)" "$(detail driver)"
check "toolkit from CUDA_PATH's version.json" sh -c 'printf "%s" "$1" | grep -q "12.4.1, from .*version.json"' _ "$(detail toolkit)"
check "compat.toolkit: 9.1 cuda12 with 12.4 (no table row: majors agree)" test "$(status compat.toolkit)" = ok
check "compat.driver: 550.54.15 meets 12.4's 550.54.14" test "$(status compat.driver)" = ok
run_cdm doctor
expect_rc 0 "the text form also passes"
check "text lines read 'status name detail'" \
  sh -c 'printf "%s" "$1" | grep -Eq "^ok +library.version +cudnnGetVersion\(\) = 90100"' _ "$OUT"
run_cdm doctor --json "$SCRATCH/p1"
check "PROJECT given as an argument" test "$(json 'd["project"]')" = "$SCRATCH/p1"

# ---- shadowing: a second copy earlier on LD_LIBRARY_PATH -----------------------------
mkdir -p "$SCRATCH/old/lib" "$SCRATCH/old/include"
stub "$SCRATCH/old/lib/libcudnn.so.9" -DSTUB_VERSION=90000
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 0\n#define CUDNN_PATCHLEVEL 0\n' >"$SCRATCH/old/include/cudnn_version.h"
LD_LIBRARY_PATH=$SCRATCH/old/lib:$SCRATCH/p1/cuda_link/lib run_cdm doctor --json
expect_rc 1 "a copy earlier on LD_LIBRARY_PATH fails the doctor"
check "shadowing names it, its version and where it comes from" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "$3/old/lib/libcudnn.so.9. (cuDNN 9.0.0) via LD_LIBRARY_PATH"' _ "$(status shadowing)" "$(detail shadowing)" "$SCRATCH"
OUT=$(LD_LIBRARY_PATH=$SCRATCH/old/lib:$SCRATCH/p1/cuda_link/lib "$CDM" doctor 2>&1 | cat)
check "the summary on stderr comes after the report, also when stdout is a pipe" \
  test "$(printf '%s\n' "$OUT" | tail -1)" = "cdm: doctor found problems; see the fixes above"
LD_LIBRARY_PATH=$SCRATCH/old/lib run_cdm doctor --json
check "not activated, with another copy on the path: warn, fix says activate" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "cdm activate"' _ "$(status shadowing)" "$(fixtext shadowing)"

# ---- the library's version disagrees with the install --------------------------------
bad=$(archive 9.2.0.82 12 -DSTUB_VERSION=90100)
run_cdm install "$bad"
project "$SCRATCH/p2" 9.2.0.82-cuda12
run_cdm doctor --json "$SCRATCH/p2"
expect_rc 1 "a library whose version disagrees fails"
check "library.version names both" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "90100 (9.1.0) but the install is 9.2.0.82"' _ "$(status library.version)" "$(detail library.version)"

# ---- a missing dependency ------------------------------------------------------------
mkdir -p "$W/fakedep"
"$CC" -shared -fPIC -o "$W/fakedep/libcublasLt.so.99" -Wl,-soname,libcublasLt.so.99 -x c /dev/null
missing=$(archive 9.3.0.75 12 -Wl,--no-as-needed "$W/fakedep/libcublasLt.so.99")
rm -rf "$W/fakedep"
run_cdm install "$missing"
project "$SCRATCH/p3" 9.3.0.75-cuda12
run_cdm doctor --json "$SCRATCH/p3"
expect_rc 1 "a library with a missing import fails"
check "library.load fails with the loader's message" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "libcublasLt.so.99"' _ "$(status library.load)" "$(detail library.load)"
check "deps names the missing library and where it comes from" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "missing libcublasLt.so.99 (cuBLASLt, from the CUDA toolkit)"' _ "$(status deps.libcudnn.so.9)" "$(detail deps.libcudnn.so.9)"
check "and how to fix it" sh -c 'printf "%s" "$1" | grep -q "install the CUDA 12 toolkit"' _ "$(fixtext deps.libcudnn.so.9)"
check "the sub-library's imports are fine" test "$(status deps.libcudnn_graph.so.9)" = ok

# ---- no GPU, and a GPU that cuDNN cannot use -----------------------------------------
nogpu=$(archive 9.4.0.58 12 -DSTUB_CREATE=1001 -DSTUB_VERSION=90400)
run_cdm install "$nogpu"
# (LD_LIBRARY_PATH still names p1's 9.1.0 here, whose sub-libraries a program loading 9.4's
# libcudnn.so.9 would get: the same-install rule fails that, so it goes for these runs)
LD_LIBRARY_PATH='' CDM_DRIVER_LIB_PATH=$SCRATCH/nodriver run_cdm doctor --json --cudnn 9.4
expect_rc 0 "no driver: doctor warns, it does not fail or crash"
check "library.handle warns that there is no GPU, naming the status" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "no GPU here.*CUDNN_STATUS_NOT_INITIALIZED (1001)"' _ "$(status library.handle)" "$(detail library.handle)"
check "driver warns it found none" test "$(status driver)" = warn
check "--cudnn examines an install without a project" test "$(json 'd["install"]')" = 9.4.0.58-cuda12
run_cdm doctor --json --cudnn 9.4
expect_rc 1 "with a driver present, cudnnCreate failing is a failure"
check "library.handle fails with the status name" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "CUDNN_STATUS_NOT_INITIALIZED"' _ "$(status library.handle)" "$(detail library.handle)"

# ---- toolkit and driver against the tables -------------------------------------------
printf 'CUDA Version 11.8.89\n' >"$SCRATCH/cuda118.txt"
mkdir -p "$SCRATCH/cuda118" && mv "$SCRATCH/cuda118.txt" "$SCRATCH/cuda118/version.txt"
cd "$SCRATCH/p1" || exit 1
CUDA_PATH=$SCRATCH/cuda118 run_cdm doctor --json
expect_rc 1 "a CUDA 11.8 toolkit under a cuda12 build fails"
check "compat.toolkit says why (toolkit from version.txt)" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "built for CUDA 12 does not work with a CUDA 11.8 toolkit"' _ "$(status compat.toolkit)" "$(detail compat.toolkit)"
CDM_DRIVER_LIB_PATH=$SCRATCH/olddriver run_cdm doctor --json
check "a driver below 12.4's minimum but above the 12.x floor warns" \
  sh -c 'test "$1" = warn && printf "%s" "$2" | grep -q "minor-version-compatibility floor"' _ "$(status compat.driver)" "$(detail compat.driver)"
CUDA_PATH=$SCRATCH/p1/cuda_link run_cdm doctor --json
check "CUDA_PATH pointing at the project's link (as activation sets it) is not taken for a toolkit" \
  sh -c '! printf "%s" "$1" | grep -q "(CUDA_PATH)"' _ "$(detail toolkit)"

v8=$(archive 8.9.5.30 12 -DSTUB_VERSION=8905 -DSTUB_CUDART=12020)
run_cdm install "$v8"
run_cdm doctor --json --cudnn 8.9.5
check "cuDNN 8: 8905 decodes as 8.9.5 (the old encoding), libcudnn.so.8" \
  sh -c 'test "$1" = ok && printf "%s" "$2" | grep -q "8905 (8.9.5)"' _ "$(status library.version)" "$(detail library.version)"
check "8.9.5 cuda12 under 12.4: past NVIDIA's matrix, a warning" test "$(status compat.toolkit)" = warn
mkdir -p "$SCRATCH/cuda13" && printf 'CUDA Version 13.0.48\n' >"$SCRATCH/cuda13/version.txt"
CUDA_PATH=$SCRATCH/cuda13 run_cdm doctor --json --cudnn 8.9.5
check "8.9.5 under CUDA 13: the fix names no cuda13 build of 8.9 (there is none), but 9.12" \
  sh -c 'printf "%s" "$1" | grep -q "cuDNN 8.9 has no cuda13 build.*cdm install 9.12 --cuda 13" && ! printf "%s" "$1" | grep -q "8.9 --cuda 13"' _ "$(fixtext compat.toolkit)"

# ---- the project's link, pin and store ----------------------------------------------
echo 9.2.0.82-cuda12 >"$SCRATCH/p1/.cudnn-version"
run_cdm doctor --json
expect_rc 1 "a pin that disagrees with the link fails"
check "project.pin names both ids" \
  sh -c 'test "$1" = fail && printf "%s" "$2" | grep -q "pin says 9.2.0.82-cuda12 but the link points to 9.1.0.70-cuda12"' _ "$(status project.pin)" "$(detail project.pin)"
echo 9.1.0.70-cuda12 >"$SCRATCH/p1/.cudnn-version"
mkdir -p "$CDM_ROOT/.staging/9.9.9.9-cuda12.4242.tmp"
run_cdm doctor --json
check "leftovers in .staging warn and say 'cdm gc'" \
  sh -c 'test "$1" = warn && test "$2" = "run '"'"'cdm gc'"'"'"' _ "$(status store.leftovers)" "$(fixtext store.leftovers)"
check "and the doctor did not clean them itself" test -d "$CDM_ROOT/.staging/9.9.9.9-cuda12.4242.tmp"
ln -sfn "$SCRATCH/old" "$SCRATCH/p1/cuda_link"
run_cdm doctor --json
check "a link out of the store fails project.link" test "$(status project.link)" = fail
rm "$SCRATCH/p1/cuda_link" && mkdir "$SCRATCH/p1/cuda_link"
run_cdm doctor --json
check "a real folder at the link's place fails, and is left alone" \
  sh -c 'test "$1" = fail && test -d "$2"' _ "$(status project.link)" "$SCRATCH/p1/cuda_link"

run_cdm doctor --cudnn 5.0
expect_rc 1 "--cudnn with a version not installed fails"
expect_err "not installed" "saying so"
run_cdm doctor a b
expect_rc 2 "two projects are a usage error"
run_cdm doctor "$SCRATCH/nope"
expect_rc 1 "a project folder that does not exist fails"

# ---- a file that is no library: as its source held it, or changed since ---------------------
# make_fixture's stand-ins are text: the fix says the archive held them so (verify would find
# nothing); a stand-in changed after the install gets verify and a forced install.
run_cdm install "$(fixture cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz --version 9.10.2.21)"
expect_rc 0 "an archive of text stand-ins installs"
project "$SCRATCH/p_text" 9.10.2.21-cuda12
run_cdm doctor "$SCRATCH/p_text" --json
check "a stand-in that is no library: the fix says the archive held it so" \
  sh -c 'case $1 in "the file is as installed"*"cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz'"'"' held it so"*) ;; *) exit 1 ;; esac' _ "$(fixtext deps.libcudnn.so.9)"
check "and library.load sends to the deps checks for either cause" \
  sh -c 'printf "%s" "$1" | grep -q "a library it needs is missing, or a file is no library"' _ "$(fixtext library.load)"
text=$(readlink -f "$CDM_ROOT/9.10.2.21-cuda12/lib/libcudnn.so.9")
chmod u+w "$text" "$(dirname "$text")" && printf 'changed' >>"$text"
run_cdm doctor "$SCRATCH/p_text" --json
check "changed since the install: the fix names verify and a forced install" \
  sh -c 'case $1 in "the file changed since it was installed: '"'"'cdm verify 9.10.2.21-cuda12'"'"'"*"--force") ;; *) exit 1 ;; esac' _ "$(fixtext deps.libcudnn.so.9)"
chmod a-w "$text" "$(dirname "$text")"

done_testing
