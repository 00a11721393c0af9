# The exact text per shell (golden files in tests/golden/, @SCRATCH@ for the scratch folder),
# and PowerShell's text parsed by a real PowerShell grammar (tree-sitter-powershell), since
# no pwsh runs here. CDM_REGEN_GOLDEN=1 rewrites the golden files.
. "$TESTS_DIR/cli/lib.sh"

run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
# Every awkward character cmd can take too (it cannot take a double quote).
name=$'it\'s 100% ^&`$x;\\y \xc3\xa9\xe2\x80\x98q'
mkdir -p "$SCRATCH/w/$name"
P=$(cd "$SCRATCH/w/$name" && pwd -P)
ln -s "$CDM_ROOT/9.1.0.70-cuda12" "$P/cuda_link"
GOLDEN="$TESTS_DIR/golden"

golden() { # CASE SHELL: compare stdout of the last run with golden/CASE.SHELL
  local file="$GOLDEN/$1.$2" got
  got=$(printf '%s\n' "$OUT" | sed "s|$SCRATCH|@SCRATCH@|g")
  if [ -n "${CDM_REGEN_GOLDEN-}" ]; then printf '%s\n' "$got" >"$file"; fi
  if [ "$got" = "$(cat "$file" 2>/dev/null)" ]; then
    ok "$2: $1 text is exactly golden/$1.$2"
  else
    not_ok "$2: $1 text is exactly golden/$1.$2"
    diag "got:" "$got"
  fi
}

# goldens SUFFIX: activate in every shell, deactivate in four, against golden/activate$SUFFIX.*
# and golden/deactivate$SUFFIX.*
goldens() {
  local sh
  for sh in bash zsh sh fish pwsh powershell cmd; do
    run_cdm activate --shell "$sh"
    golden "activate$1" "$sh"
  done
  for sh in bash fish pwsh cmd; do
    OUT=$(eval "$("$CDM" activate --shell bash)" && "$CDM" deactivate --shell "$sh")
    golden "deactivate$1" "$sh"
  done
}

cd "$P" || exit 1
export LD_LIBRARY_PATH=/orig/x CUDNN_PATH=
unset CUDA_PATH
goldens ""
active_env=$(eval "$("$CDM" activate --shell bash)" && env | grep -E '^(CUDA_PATH|CUDNN_PATH|CUDNN_ROOT|CUDNN_ROOT_DIR|LD_LIBRARY_PATH|CDM_[APS][A-Z_]*)=' | LC_ALL=C sort)
# The prompt hooks (PowerShell's only checked here and by the parse below).
for sh in bash zsh fish pwsh; do
  run_cdm hook "$sh"
  golden hook "$sh"
done

# [activate] build_paths: CMAKE_PREFIX_PATH, CPATH and LIBRARY_PATH too, each saved (set,
# empty, unset) and given back.
printf '[activate]\nbuild_paths = true\n' >"$CDM_CONFIG"
export CMAKE_PREFIX_PATH=/opt/x CPATH=
unset LIBRARY_PATH
goldens _build
build_names='^(CUDA_PATH|CUDNN_PATH|CUDNN_ROOT|CUDNN_ROOT_DIR|LD_LIBRARY_PATH|CMAKE_PREFIX_PATH|CPATH|LIBRARY_PATH|CDM_([APS]|CMAKE_|CPATH_|LIBRARY_)[A-Z_]*)='
build_env=$(eval "$("$CDM" activate --shell bash)" && env | grep -E "$build_names" | LC_ALL=C sort)
: >"$CDM_CONFIG"
unset CMAKE_PREFIX_PATH CPATH

# PowerShell grammar: the text parses, holds only verbatim strings, and assigns exactly what
# bash got from the same activation.
cache=$(test_cache)/tree-sitter-powershell
# The registry fails now and then: three tries, further apart each time. tree-sitter builds
# a native module: it takes the system's node headers (libnode-dev) when they are this
# node's, rather than downloading them from nodejs.org. Each try has 60 s: a machine that
# cannot reach the registry fails fast and says so, rather than waiting for meson's timeout.
npm_install() {
  local try nodedir=()
  local h=/usr/include/node/node_version.h
  if [ -f "$h" ] && [ "$(node -p process.versions.node)" = "$(awk '/define NODE_(MAJOR|MINOR|PATCH)_VERSION/ { v = v (v == "" ? "" : ".") $3 } END { print v }' "$h")" ]; then
    nodedir=(--nodedir=/usr)
  fi
  for try in 1 2 3; do
    (mkdir -p "$cache" && cd "$cache" &&
      timeout 60 npm install --no-audit --no-fund --silent "${nodedir[@]}" tree-sitter@0.25.1 tree-sitter-powershell@0.26.4 >/dev/null 2>&1) &&
      return 0
    [ $try -lt 3 ] && sleep $((try * 5))
  done
  return 1
}
# shellcheck disable=SC2216 # ps is the PowerShell parser defined below, which reads stdin
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  skip_tool "PowerShell text parses with tree-sitter-powershell" "node or npm is not installed"
elif [ ! -d "$cache/node_modules/tree-sitter-powershell" ] &&
  ! npm_why=$(registry_reachable "$(npm config get registry 2>/dev/null || echo https://registry.npmjs.org/)"); then
  skip_tool "PowerShell text parses with tree-sitter-powershell" "tree-sitter-powershell is not cached, and $npm_why"
elif [ ! -d "$cache/node_modules/tree-sitter-powershell" ] && ! npm_install; then
  skip_tool "PowerShell text parses with tree-sitter-powershell" "npm could not install tree-sitter-powershell 0.26.4 from the registry (3 tries of 60 s)"
else
  ps() { NODE_PATH="$cache/node_modules" node --no-warnings "$TESTS_DIR/ps_parse.mjs" : 2>&1; }
  parsed=$(printf '%s\n' "$("$CDM" activate --shell pwsh)" | ps)
  check "pwsh activate parses and assigns what bash got" \
    test "$(printf '%s\n' "$parsed" | LC_ALL=C sort)" = "$active_env"
  [ "$(printf '%s\n' "$parsed" | LC_ALL=C sort)" = "$active_env" ] || diag "$parsed"
  parsed=$(eval "$("$CDM" activate --shell bash)" && "$CDM" deactivate --shell pwsh | ps)
  check "pwsh deactivate parses, restores /orig/x and removes the rest" \
    test "$(printf '%s\n' "$parsed" | tr '\n' ' ')" = "CUDA_PATH CUDNN_PATH= LD_LIBRARY_PATH=/orig/x CDM_SAVED_CUDA_PATH CDM_SAVED_CUDNN_PATH CDM_SAVED_LD_LIBRARY_PATH CDM_PATH_ENTRY CDM_PROJECT CDM_ACTIVE CUDNN_ROOT CDM_SAVED_CUDNN_ROOT CUDNN_ROOT_DIR CDM_SAVED_CUDNN_ROOT_DIR "
  parsed=$(printf '[activate]\nbuild_paths = true\n' >"$CDM_CONFIG" &&
    CMAKE_PREFIX_PATH=/opt/x CPATH='' "$CDM" activate --shell pwsh | ps)
  : >"$CDM_CONFIG"
  check "pwsh activate with build_paths parses and assigns what bash got" \
    test "$(printf '%s\n' "$parsed" | grep -E "$build_names" | LC_ALL=C sort)" = "$build_env"
  [ "$(printf '%s\n' "$parsed" | grep -E "$build_names" | LC_ALL=C sort)" = "$build_env" ] || diag "$parsed"
  OUT=$(printf '%s\n' "\$env:X = \"\$(evil)\"" | ps)
  check "the parse check does fail on an expandable string" test "$OUT" = "an expandable string: \$env:X = \"\$(evil)\""
  for f in hook completion; do
    if [ $f = hook ]; then text=$("$CDM" hook pwsh); else text=$(cat "$TESTS_DIR/../completions/cdm.ps1"); fi
    tree=$(printf '%s\n' "$text" | NODE_PATH="$cache/node_modules" node --no-warnings -e '
      const { createRequire } = require("node:module");
      const r = createRequire(process.env.NODE_PATH + "/");
      (async () => {
        const P = (await import(r.resolve("tree-sitter"))).default;
        const L = (await import(r.resolve("tree-sitter-powershell"))).default;
        const p = new P(); p.setLanguage(L);
        const t = p.parse(require("fs").readFileSync(0, "utf8"));
        console.log(t.rootNode.hasError ? "error" : "fine");
      })();' 2>&1)
    check "the PowerShell $f script parses" test "$tree" = fine
  done
fi

done_testing
