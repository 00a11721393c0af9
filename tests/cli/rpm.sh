# cdm install of NVIDIA's RPM packages of cuDNN (its CUDA repository's layout for RHEL, built
# by a real rpmbuild): the runtime, headers and devel packages together or one after the
# other, every file against the SHA-256 (or, from an old rpmbuild, MD5) digest of the RPM
# header, hostile packages refused with nothing left, and a real cuDNN's files as packages.
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_real_cudnn.sh"

PY=$(command -v python3) || { skip_tool "RPM packages" "no python3 to write them"; done_testing; exit; }
command -v rpmbuild >/dev/null || { skip_tool "RPM packages" "no rpmbuild to build them (rpm)"; done_testing; exit; }
mr() { # mr DIR VERSION CUDA PART [OPTIONS]: a package written into DIR
  local dir=$1
  shift
  mkdir -p "$dir"
  "$PY" "$TESTS_DIR/make_rpm.py" "$dir" "$@"
}
d=$SCRATCH/rpms
rt=$(mr "$d" 9.14.0.64 13 runtime)
hd=$(mr "$d" 9.14.0.64 13 headers)
dev=$(mr "$d" 9.14.0.64 13 devel)
check "rpm reads the packages made for the test" sh -c 'rpm -qp "$1" >/dev/null' _ "$rt"
store=$CDM_ROOT/9.14.0.64-cuda13

run_cdm install "$hd" --json
expect_rc 0 "the headers package alone is taken"
check "kept as a part, not installed" test "$(json 'd["kept"], d["changed"]')" = "(True, False)"
run_cdm install "$rt" --json
expect_rc 0 "the runtime package completes the install"
check "one install from the RPM packages, recorded from the runtime's" \
  test "$(json 'd["changed"], d["source"], d["from"]')" = "(True, 'rpm', '$(basename "$rt")')"
check "usr/lib64 becomes lib/, the chain of links kept" \
  test "$(readlink "$store/lib/libcudnn_ops.so.9")" = libcudnn_ops.so.9.14.0 -a -f "$store/lib/libcudnn_ops.so.9.14.0"
check "the headers under the archive's names: cudnn_v9.h is include/cudnn.h, a file" \
  test -f "$store/include/cudnn.h" -a ! -L "$store/include/cudnn.h" -a ! -e "$store/include/cudnn_v9.h"
check "nothing is left in .staging" empty_dir "$CDM_ROOT/.staging"
run_cdm verify
expect_rc 0 "verify passes"
run_cdm install "$rt"
expect_err "already installed from this rpm" "the runtime package again: nothing to do"

rm_store "$CDM_ROOT"
run_cdm install "$dev" "$rt" "$hd" --json
expect_rc 0 "the three packages given together install"
check "as one install, with the devel package's links" \
  test "$(json 'len(d), d[0]["changed"]')" = "(1, True)" -a "$(readlink "$store/lib/libcudnn.so")" = libcudnn.so.9
run_cdm verify
expect_rc 0 "verify passes on the three packages' install"

rm_store "$CDM_ROOT"
old=$SCRATCH/rpms-old
run_cdm install "$(mr "$old" 9.1.0.70 12 runtime --digest md5)" "$(mr "$old" 9.1.0.70 12 devel-old --digest md5)"
expect_rc 0 "a 9.1 runtime and devel pair with MD5 digests (an older rpmbuild's) installs"
check "the devel package's headers by the archive's names" test -f "$CDM_ROOT/9.1.0.70-cuda12/include/cudnn_version.h"

refused() { # refused "message" "description" PACKAGE [OTHER]: with OTHER (default: the headers)
  rm_store "$CDM_ROOT" "$SCRATCH/evil"
  run_cdm install "$3" "${4:-$hd}"
  expect_rc 1 "$2 is refused"
  expect_err "$1" "$2: the message says why"
  check "$2: nothing is installed" test ! -e "$store" -a ! -e "$SCRATCH/evil"
  check "$2: nothing is left in .staging" test ! -e "$CDM_ROOT/.staging" -o -z "$(ls -A "$CDM_ROOT/.staging" 2>/dev/null)"
}
h=$SCRATCH/hostile
lib=usr/lib64/libcudnn_ops.so.9.14.0
refused "'$lib' does not match its header's file digests \\(sha256 " "a package whose header lies about a library" \
  "$(mr "$h/1" 9.14.0.64 13 runtime --lie "$lib")"
refused "'$lib' does not match its header's file digests \\(md5 " "a package whose MD5 digest lies" \
  "$(mr "$h/2" 9.14.0.64 13 runtime --digest md5 --lie "$lib")"
refused "its header's file digests names 'usr/lib64/../../../../../../evil', which leaves the package's folder" \
  "a package whose header names a file outside" \
  "$(mr "$h/3" 9.14.0.64 13 runtime --rename "$lib=../../../../../../evil")"
refused "it is the RPM package 'python3-numpy', not cuDNN" "a package that is not cuDNN" \
  "$(mr "$h/4" 9.14.0.64 13 runtime --package python3-numpy)"
refused "cannot read RPM package '.*': no RPM lead and headers there" "a file named .rpm that is no package" \
  "$(mkdir -p "$h/5" && printf 'not a package' >"$h/5/libcudnn9-cuda-13-9.14.0.64-1.x86_64.rpm" && echo "$h/5/libcudnn9-cuda-13-9.14.0.64-1.x86_64.rpm")"
if command -v dpkg-deb >/dev/null; then
  rm_store "$CDM_ROOT"
  mkdir -p "$SCRATCH/debs"
  run_cdm install "$rt" "$("$PY" "$TESTS_DIR/make_deb.py" "$SCRATCH/debs" 9.14.0.64 13 headers)"
  check "a Debian package is no part of an RPM package's install" test ! -e "$store"
fi

root=$(real_cudnn_root 2>"$SCRATCH/real.err")
if [ -z "$root" ]; then
  skip_tool "a real cuDNN as RPM packages" "$(tail -1 "$SCRATCH/real.err")"
else
  rm_store "$CDM_ROOT"
  full=$(real_cudnn_version "$root")
  v=${full%.*}
  real=$SCRATCH/rpms-real
  run_cdm install "$(mr "$real" "$full" 12 runtime --from "$root")" \
    "$(mr "$real" "$full" 12 devel-old --from "$root")" --json
  expect_rc 0 "a real cuDNN's runtime and devel packages install"
  run_cdm verify
  expect_rc 0 "and pass verify"
  mkdir -p "$SCRATCH/project"
  run_cdm link "$SCRATCH/project" "$v"
  LD_LIBRARY_PATH=$SCRATCH/project/cuda_link/lib run_cdm doctor "$SCRATCH/project"
  check "the doctor loads the real library of the packages' install" grep -q '^ok *library.load ' <<<"$OUT"
fi

done_testing
