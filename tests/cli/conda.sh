# cdm install of cuDNN as a conda package (conda-forge's layout): .tar.bz2 and .conda, Linux
# and Windows, the version and CUDA major from info/index.json, every file against
# info/paths.json, one install for the same bytes in another form, hostile packages refused
# with nothing left.
. "$TESTS_DIR/cli/lib.sh"

PY=$(command -v python3) || { skip_tool "conda packages" "no python3 to write them"; done_testing; exit; }
if ! command -v zstd >/dev/null && ! command -v bsdtar >/dev/null; then
  skip_tool "conda packages" "neither zstd nor bsdtar to write a .conda's zstd"
  done_testing
  exit
fi
mkdir -p "$SCRATCH/pkgs"
mc() { "$PY" "$TESTS_DIR/make_conda.py" "$SCRATCH/pkgs" "$@"; }
bz2=$(mc 9.1.0.70 12)
run_cdm install "$bz2" --json
expect_rc 0 "a conda .tar.bz2 installs"
check "its id from info/index.json: the version, the CUDA major of cuda-version" \
  test "$(json 'd["id"], d["source"], d["changed"]')" = "('9.1.0.70-cuda12', 'conda', True)"
check "the recorded sha256 is the package's" test "$(json 'd["sha256"]')" = "$(sha256sum "$bz2" | cut -d' ' -f1)"
store=$CDM_ROOT/9.1.0.70-cuda12
check "lib/ and include/, the chain of links kept" \
  test "$(readlink "$store/lib/libcudnn.so.9")" = libcudnn.so.9.1.0 -a -f "$store/include/cudnn_version.h"
check "info/ stays out" test ! -e "$store/info"
run_cdm verify
expect_rc 0 "verify passes"
rm -f "$SCRATCH/pkgs/cudnn-9.1.0.70-cuda12_0.conda"
conda=$(mc 9.1.0.70 12 --conda)
run_cdm install "$conda" --json
expect_rc 0 "the same package as .conda"
check "is the same install" test "$(json 'd["changed"]')" = False
rm_store "$CDM_ROOT"
run_cdm install "$conda" --json
expect_rc 0 "a .conda installs into an empty store"
check "with its own hash recorded" test "$(json 'd["sha256"]')" = "$(sha256sum "$conda" | cut -d' ' -f1)"
check "and nothing is left in .staging (its pkg tar was copied out there)" empty_dir "$CDM_ROOT/.staging"

win=$(mc 9.14.0.64 13 --windows --conda)
run_cdm install "$win"
expect_rc 1 "a win-64 package is refused on Linux"
expect_err "is for windows-x86_64 but this store is for linux-x86_64" "naming both platforms"
run_cdm install "$win" --platform windows-x86_64 --json
expect_rc 0 "with --platform windows-x86_64 it installs"
check "Library/bin becomes bin/" test "$(ls "$CDM_ROOT/9.14.0.64-cuda13/bin" | grep -c 'dll$')" -eq 6

refused() { # refused PACKAGE "message" "description"
  rm_store "$CDM_ROOT" "$SCRATCH/evil"
  run_cdm install "$1"
  expect_rc 1 "$3 is refused"
  expect_err "$2" "$3: the message says why"
  check "$3: nothing is installed" test ! -e "$CDM_ROOT/9.1.0.70-cuda12" -a ! -e "$SCRATCH/evil"
  check "$3: nothing is left in .staging" test ! -e "$CDM_ROOT/.staging" -o -z "$(ls -A "$CDM_ROOT/.staging" 2>/dev/null)"
  rm -f "$1"
}
lib=lib/libcudnn_ops.so.9.1.0
refused "$(mc 9.1.0.70 12 --change "$lib")" "'$lib' does not match its info/paths.json" \
  "a package whose paths.json lies about a library"
refused "$(mc 9.1.0.70 12 --conda --change "$lib")" "'$lib' does not match its info/paths.json" \
  "a .conda whose paths.json lies about a library"
refused "$(mc 9.1.0.70 12 --drop include/cudnn_version.h)" "lists 'include/cudnn_version.h', which the conda package does not hold" \
  "a package missing a file of its paths.json"
refused "$(mc 9.1.0.70 12 --extra lib/libcudnn_extra.so.9)" "'lib/libcudnn_extra.so.9' is not in its info/paths.json" \
  "a package with a file its paths.json does not list"
refused "$(mc 9.1.0.70 12 --extra ../../evil)" "goes up with '..'" "a package with a '..' path"
refused "$(mc 9.1.0.70 12 --extra /tmp/evil)" "is an absolute path" "a package with an absolute path"
refused "$(mc 9.1.0.70 12 --extra-link lib/libcudnn_evil.so.9=/etc/passwd)" "points to an absolute path" \
  "a package with an absolute link"
refused "$(mc 9.1.0.70 12 --paths-extra ../../../etc/passwd)" "names '../../../etc/passwd', which leaves the package's folder" \
  "a paths.json naming a file outside"
refused "$(mc 9.1.0.70 12 --name numpy)" "it is the conda package 'numpy', not cuDNN" "a package that is not cuDNN"

done_testing
