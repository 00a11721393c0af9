# cdm install of NVIDIA's Debian packages of cuDNN (its CUDA repository's layout): the
# runtime, headers and dev packages given one after the other or together, each against its
# md5sums, one install for the same bytes in another form, hostile packages refused with
# nothing left, and a real cuDNN's files as packages.
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_real_cudnn.sh"

PY=$(command -v python3) || { skip_tool "Debian packages" "no python3 to write them"; done_testing; exit; }
command -v dpkg-deb >/dev/null || { skip_tool "Debian packages" "no dpkg-deb to build them"; done_testing; exit; }
md() { # md DIR VERSION CUDA PART [OPTIONS]: a package written into DIR
  local dir=$1
  shift
  mkdir -p "$dir"
  "$PY" "$TESTS_DIR/make_deb.py" "$dir" "$@"
}
parts_kept() { "$PY" -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from install_parts").fetchone()[0])' "$CDM_ROOT/cdm.db"; }

d=$SCRATCH/debs
rt=$(md "$d" 9.14.0.64 13 runtime)
hd=$(md "$d" 9.14.0.64 13 headers)
dev=$(md "$d" 9.14.0.64 13 dev)
check "dpkg-deb reads the packages made for the test" sh -c 'dpkg-deb --info "$1" >/dev/null' _ "$rt"

run_cdm install "$rt" --json
expect_rc 0 "the runtime package alone is taken"
check "kept as a part, not installed" test "$(json 'd["id"], d["kept"], d["changed"]')" = "('9.14.0.64-cuda13', True, False)"
check "nothing is in the store yet" test ! -e "$CDM_ROOT/9.14.0.64-cuda13"
check "one package is kept in the index" test "$(parts_kept)" = 1
run_cdm install "$rt"
expect_err "kept '.*' as a part of 9.14.0.64-cuda13, not installed yet; install the headers package of the same version \\(libcudnn9-headers-cuda-13" \
  "the message names the package that completes it"
run_cdm install "$hd" --json
expect_rc 0 "the headers package completes the install"
check "one install, recorded from the runtime package" \
  test "$(json 'd["changed"], d["source"], d["from"]')" = "(True, 'deb', '$(basename "$rt")')"
check "with the runtime package's sha256" test "$(json 'd["sha256"]')" = "$(sha256sum "$rt" | cut -d' ' -f1)"
store=$CDM_ROOT/9.14.0.64-cuda13
check "usr/lib/x86_64-linux-gnu becomes lib/, the chain of links kept" \
  test "$(readlink "$store/lib/libcudnn_ops.so.9")" = libcudnn_ops.so.9.14.0 -a -f "$store/lib/libcudnn_ops.so.9.14.0"
check "the headers under the archive's names: cudnn_v9.h is include/cudnn.h, a file" \
  test -f "$store/include/cudnn.h" -a ! -L "$store/include/cudnn.h" -a -f "$store/include/cudnn_version.h" -a ! -e "$store/include/cudnn_v9.h"
check "usr/share/doc stays out" test -z "$(find "$store" -name copyright)"
check "the kept package is forgotten once installed" test "$(parts_kept)" = 0
check "nothing is left in .staging" empty_dir "$CDM_ROOT/.staging"
run_cdm verify
expect_rc 0 "verify passes"
run_cdm list --json
check "list says it came from the Debian packages" test "$(json '[(i["source"], i["archive"]) for i in d][0]')" = "('deb', '$(basename "$rt")')"
run_cdm install "$rt"
expect_err "already installed from this deb" "the runtime package again: nothing to do"
run_cdm install "$hd"
expect_rc 0 "the headers package again: the same files, nothing to do"
run_cdm install "$dev"
expect_rc 0 "the dev package after the install: nothing to do"
expect_err "holds only the development links \\(libcudnn.so\\), which 9.14.0.64-cuda13 was installed without" \
  "saying the install stays as it was recorded"

# Given together, in any order: one install, with the dev package's links.
rm_store "$CDM_ROOT"
run_cdm install "$dev" "$hd" "$rt" --json
expect_rc 0 "the three packages given together install"
check "as one install, made of the first file's turn" test "$(json 'len(d), d[0]["changed"], d[0]["from"]')" = "(1, True, '$(basename "$rt")')"
check "with the dev package's links" test "$(readlink "$store/lib/libcudnn.so")" = libcudnn.so.9
run_cdm verify
expect_rc 0 "verify passes on the three packages' install"
chmod u+w "$store/include" "$store/include/cudnn_ops.h"
printf x >>"$store/include/cudnn_ops.h"
run_cdm verify
expect_rc 1 "verify finds a header changed since"
check "and says which package the install came from, to install again" \
  grep -q "^9.14.0.64-cuda13 came from deb '$(basename "$rt")' (sha256 " <<<"$OUT"
run_cdm verify --json
check "as its JSON does" test "$(json '[(p["source"], p["from"]) for p in d["problems"]][0]')" = "('deb', '$(basename "$rt")')"

# Before 9.14 the dev package held the headers (update-alternatives named them).
old=$SCRATCH/debs-old
rm_store "$CDM_ROOT"
run_cdm install "$(md "$old" 9.1.0.70 12 dev-old)" "$(md "$old" 9.1.0.70 12 runtime)"
expect_rc 0 "a 9.1 runtime and dev package pair installs"
check "the dev package's headers by the archive's names" test -f "$CDM_ROOT/9.1.0.70-cuda12/include/cudnn_version.h"

# A kept package whose file changed before the one that completes it is forgotten.
rm_store "$CDM_ROOT" "$SCRATCH/moved"
mkdir -p "$SCRATCH/moved"
cp "$rt" "$SCRATCH/moved/"
run_cdm install "$SCRATCH/moved/$(basename "$rt")"
printf x >>"$SCRATCH/moved/$(basename "$rt")"
run_cdm install "$hd"
expect_rc 0 "the headers package, its runtime changed since it was kept"
expect_err "forgetting '.*', kept for this version: its file has changed since" "says the kept file is forgotten"
check "and keeps the headers package, installing nothing" test ! -e "$store" -a "$(parts_kept)" = 1

# One id, one set of bytes: the packages holding a wheel's libraries are the wheel's install.
rm_store "$CDM_ROOT" "$SCRATCH/whl"
mkdir -p "$SCRATCH/wheels"
whl=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu12 9.1.0.70)
if [ -n "$whl" ]; then
  mkdir -p "$SCRATCH/whl" && "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$SCRATCH/whl"
  run_cdm install "$whl"
  expect_rc 0 "the wheel installs"
  same=$SCRATCH/debs-same
  run_cdm install "$(md "$same" 9.1.0.70 12 runtime --from "$SCRATCH/whl/nvidia/cudnn")" \
    "$(md "$same" 9.1.0.70 12 dev-old --from "$SCRATCH/whl/nvidia/cudnn")"
  expect_rc 0 "Debian packages of the wheel's libraries"
  expect_err "is already installed \\(from wheel '$(basename "$whl")'\\), with the same library bytes" \
    "are the wheel's install"
  other=$SCRATCH/debs-other
  cp -r "$SCRATCH/whl/nvidia/cudnn" "$SCRATCH/other-cudnn" && printf x >>"$SCRATCH/other-cudnn/lib/libcudnn_ops.so.9"
  before=$(tree_digest "$CDM_ROOT/9.1.0.70-cuda12")
  run_cdm install "$(md "$other" 9.1.0.70 12 runtime --from "$SCRATCH/other-cudnn")" \
    "$(md "$other" 9.1.0.70 12 dev-old --from "$SCRATCH/other-cudnn")"
  expect_rc 1 "packages whose library differs by one byte are refused"
  expect_err "its 'lib/libcudnn_ops.so.9.1.0' has other bytes; pass --force" "naming the file that differs"
  check "the install is as it was" test "$(tree_digest "$CDM_ROOT/9.1.0.70-cuda12")" = "$before"
else
  skip_tool "one install for a wheel and Debian packages" "make_wheel.py failed"
fi

refused() { # refused "message" "description" PACKAGE [OTHER]: with OTHER (default: the headers)
  local msg=$1 what=$2
  rm_store "$CDM_ROOT" "$SCRATCH/evil"
  run_cdm install "$3" "${4:-$hd}"
  expect_rc 1 "$what is refused"
  expect_err "$msg" "$what: the message says why"
  check "$what: nothing is installed" test ! -e "$store" -a ! -e "$SCRATCH/evil"
  check "$what: nothing is left in .staging" test ! -e "$CDM_ROOT/.staging" -o -z "$(ls -A "$CDM_ROOT/.staging" 2>/dev/null)"
}
h=$SCRATCH/hostile
lib=usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.14.0
refused "'$lib' does not match its md5sums" "a package whose md5sums lies about a library" \
  "$(md "$h/1" 9.14.0.64 13 runtime --change "$lib")"
hdr=usr/include/x86_64-linux-gnu/cudnn_ops_v9.h
refused "its md5sums lists '$hdr', which the package does not hold" "a package missing a file of its md5sums" \
  "$(md "$h/2" 9.14.0.64 13 headers --drop "$hdr")" "$rt"
refused "its 'lib/libcudnn_extra.so.9' is not in its md5sums" "a package with a file its md5sums does not list" \
  "$(md "$h/3" 9.14.0.64 13 runtime --extra ./usr/lib/x86_64-linux-gnu/libcudnn_extra.so.9)"
refused "goes up with '..'" "a package with a '..' path" \
  "$(md "$h/4" 9.14.0.64 13 runtime --extra ./usr/lib/x86_64-linux-gnu/../../../../evil)"
refused "points to an absolute path" "a package with an absolute link" \
  "$(md "$h/5" 9.14.0.64 13 runtime --extra-link ./usr/lib/x86_64-linux-gnu/libcudnn_evil.so.9=/etc/passwd)"
refused "its md5sums names '../../../etc/passwd', which leaves the package's folder" "an md5sums naming a file outside" \
  "$(md "$h/6" 9.14.0.64 13 runtime --md5-extra ../../../etc/passwd)"
refused "it has no md5sums to check its files against" "a package without md5sums" \
  "$(md "$h/7" 9.14.0.64 13 runtime --no-md5sums)"
refused "it is the Debian package 'numpy', not cuDNN" "a package that is not cuDNN" \
  "$(md "$h/8" 9.14.0.64 13 runtime --package numpy)"
refused "cannot read Debian package '.*': .*; is it a .deb" "a file named .deb that is no package" \
  "$(mkdir -p "$h/9" && printf 'not a package' >"$h/9/libcudnn9-cuda-13_9.14.0.64-1_amd64.deb" && echo "$h/9/libcudnn9-cuda-13_9.14.0.64-1_amd64.deb")"
check "a refused package is not kept" test "$(parts_kept)" = 0

# A real cuDNN's files (NVIDIA's wheel, or the machine's toolkit) as Debian packages.
root=$(real_cudnn_root 2>"$SCRATCH/real.err")
if [ -z "$root" ]; then
  skip_tool "a real cuDNN as Debian packages" "$(tail -1 "$SCRATCH/real.err")"
else
  rm_store "$CDM_ROOT"
  full=$(real_cudnn_version "$root")
  v=${full%.*}
  real=$SCRATCH/debs-real
  # uncompressed data.tar: a real cuDNN is 1 GB, and xz of it would take most of the test
  run_cdm install "$(md "$real" "$full" 12 runtime --from "$root" --compress none)" \
    "$(md "$real" "$full" 12 dev-old --from "$root" --compress none)" --json
  expect_rc 0 "a real cuDNN's runtime and dev packages install"
  run_cdm verify
  expect_rc 0 "and pass verify"
  mkdir -p "$SCRATCH/project"
  run_cdm link "$SCRATCH/project" "$v"
  LD_LIBRARY_PATH=$SCRATCH/project/cuda_link/lib run_cdm doctor "$SCRATCH/project"
  check "the doctor loads the real library of the packages' install" grep -q '^ok *library.load ' <<<"$OUT"
  check "and reads its version as installed" grep -q "^ok *library.version " <<<"$OUT"
fi

done_testing
