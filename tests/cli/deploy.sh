# cdm deploy / --undo: an install copied over a stand-in CUDA toolkit made here (version.json,
# a fake nvcc, headers, libraries, lib64 a link as in NVIDIA's packages), the pair checked,
# the toolkit back byte for byte after --undo, and a kill during deploy or undo settled by
# the next cdm command.
. "$TESTS_DIR/cli/lib.sh"

run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
run_cdm install "$(fixture cudnn-11.3-linux-x64-v8.2.1.32.tgz)"
ID=9.1.0.70-cuda12
TK=$SCRATCH/cuda-12.3

make_toolkit() {
  rm -rf "$TK"
  mkdir -p "$TK/bin" "$TK/include" "$TK/targets/x86_64-linux/lib"
  ln -s targets/x86_64-linux/lib "$TK/lib64"
  printf '{\n  "cuda": {"name": "CUDA SDK", "version": "12.3.107"}\n}\n' >"$TK/version.json"
  printf '#!/bin/sh\necho "Cuda compilation tools, release 12.3, V12.3.107"\n' >"$TK/bin/nvcc"
  chmod 755 "$TK/bin/nvcc"
  echo '/* cuda_runtime stand-in */' >"$TK/include/cuda_runtime.h"
  echo '/* the cuDNN the toolkit had */' >"$TK/include/cudnn.h"
  echo 'old cudnn' >"$TK/lib64/libcudnn.so.9.0.0"
  ln -s libcudnn.so.9.0.0 "$TK/lib64/libcudnn.so.9"
  echo 'cudart' >"$TK/lib64/libcudart.so.12"
}
# digest: every entry of the toolkit with its kind, size or link, and content hash
digest() {
  (cd "$TK" && find . -printf '%y %p %l\n' | sort &&
    find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
make_toolkit
before=$(digest)

run_cdm --json deploy 8.2 --into "$TK"
expect_rc 1 "a cuda11 build into a CUDA 12.3 toolkit is refused"
expect_err "cannot deploy 8.2.1.32-cuda11 into the CUDA 12.3.107 toolkit" "naming the pair"
check "and the toolkit is untouched" test "$(digest)" = "$before"

run_cdm --json deploy 9.1 --into "$TK"
expect_rc 0 "cdm deploy 9.1 --into the toolkit"
check "changed, files counted, the toolkit's version read" \
  test "$(json 'str(d["changed"]) + " " + d["toolkit_version"] + " " + str(d["files"] > 0) + " " + str(d["replaced"])')" = "True 12.3.107 True 2"
check "cudnn.h is the install's now" cmp -s "$TK/include/cudnn.h" "$CDM_ROOT/$ID/include/cudnn.h"
check "the libraries went into lib64 (through its link)" \
  cmp -s "$TK/targets/x86_64-linux/lib/libcudnn.so.9" "$CDM_ROOT/$ID/lib/libcudnn.so.9"
check "the toolkit's own files stay" test -f "$TK/lib64/libcudart.so.12" -a -f "$TK/include/cuda_runtime.h"
check "the replaced header is kept in the store by content" \
  test -f "$CDM_ROOT/.deployed/$(printf '/* the cuDNN the toolkit had */\n' | sha256sum | cut -c1-64)"

run_cdm --json deploy 9.1 --into "$TK"
check "again: changed false" test "$RC" = 0 -a "$(json 'd["changed"]')" = False
run_cdm deploy 8.2 --into "$TK" --force
expect_rc 1 "another version over a deploy is refused"
expect_err "deploy --undo" "saying to undo first"

run_cdm --json deploy --undo "$TK"
expect_rc 0 "cdm deploy --undo"
check "changed" test "$(json 'd["changed"]')" = True
check "the toolkit is back byte for byte (files added by deploy gone)" test "$(digest)" = "$before"
check "the kept files are gone from the store" empty_dir "$CDM_ROOT/.deployed"
run_cdm --json deploy --undo "$TK"
check "undo again: nothing to do" test "$RC" = 0 -a "$(json 'd["changed"]')" = False

# A file changed after the deploy is not overwritten by the undo without a word.
run_cdm deploy 9.1 --into "$TK"
echo "/* the user's own line */" >>"$TK/include/cudnn_version.h"
edited=$(sha256sum <"$TK/include/cudnn_version.h")
run_cdm deploy --undo "$TK"
expect_rc 1 "an undo over a file changed since the deploy is refused"
expect_err "'$TK/include/cudnn_version.h' was changed after the deploy.*keep a copy of it, then run 'cdm deploy --undo $TK --force'" \
  "naming the file and what to do"
check "and the changed file is left as the user made it" test "$(sha256sum <"$TK/include/cudnn_version.h")" = "$edited"
run_cdm deploy --undo "$TK" --force
expect_rc 0 "--force undoes it anyway"
check "and the toolkit is back" test "$(digest)" = "$before"

# --force deploys a pair outside the tables, with a warning.
run_cdm deploy 8.2 --into "$TK" --force
expect_rc 0 "--force deploys a pair outside the tables"
expect_err "warning: .*--force" "with a warning"
"$CDM" deploy --undo "$TK" >/dev/null 2>&1
check "and its undo restores the toolkit" test "$(digest)" = "$before"

# A kill at each point of a deploy, and of an undo: the next command settles the toolkit.
CDM_CRASH_AT=deploy-kept "$CDM" deploy 9.1 --into "$TK" >/dev/null 2>&1
rc=$?
run_cdm gc
check "killed after keeping the toolkit's files, before the record (status $rc): cdm gc drops the copies" \
  test "$rc" -ne 0 -a -z "$(ls -A "$CDM_ROOT/.deployed")" -a "$(digest)" = "$before"
# A copy a kill cut short leaves a temporary file beside its place: the undo removes it.
for point in deploy-recorded deploy-file; do
  CDM_CRASH_AT=$point "$CDM" deploy 9.1 --into "$TK" >/dev/null 2>&1
  rc=$?
  echo partial >"$TK/include/cudnn.h.cdm-99999.tmp"
  # Recovery runs for what a command touches: a list reads installs, not deploys.
  run_cdm list
  check "killed at $point (status $rc): cdm list leaves the deploy's recovery to deploy" \
    test "$rc" -ne 0 -a "$(digest)" != "$before"
  run_cdm --json deploy --undo "$TK"
  check "the next deploy command puts the toolkit back ($point)" test "$(digest)" = "$before"
  check "and no deploy is left recorded ($point)" test "$(json 'd["changed"]')" = False
done
"$CDM" deploy 9.1 --into "$TK" >/dev/null 2>&1
CDM_CRASH_AT=deploy-undo-file "$CDM" deploy --undo "$TK" >/dev/null 2>&1
rc=$?
run_cdm gc
check "killed during undo (status $rc): cdm gc finishes it" test "$rc" -ne 0 -a "$(digest)" = "$before"

# Not a toolkit, a missing folder.
mkdir -p "$SCRATCH/empty"
run_cdm deploy 9.1 --into "$SCRATCH/empty"
expect_rc 1 "a folder without a toolkit is refused"
expect_err "no CUDA toolkit there" "saying what is missing"
run_cdm deploy 9.1
expect_rc 2 "VERSION without --into is a usage error"

# Something in the way of a file (a folder where cuDNN has a header, at the end of the
# plan): refused before any file is touched.
last=$(cd "$CDM_ROOT/$ID/include" && ls | sort | tail -1)
mkdir "$TK/include/$last"
before_dir=$(digest)
run_cdm deploy 9.1 --into "$TK"
expect_rc 1 "a folder in the way of a file is refused"
check "before anything is touched" test "$(digest)" = "$before_dir"
rmdir "$TK/include/$last"

# A toolkit the user cannot write: refused before anything is touched.
if [ "$(id -u)" = 0 ]; then
  skip "a read-only toolkit is refused before anything changes" "root writes through read-only modes"
else
  chmod -R a-w "$TK"
  run_cdm deploy 9.1 --into "$TK"
  chmod -R u+w "$TK"
  check "a read-only toolkit is refused before anything changes" \
    test "$RC" = 1 -a "$(digest)" = "$before"
fi
# ---- never into the store ---------------------------------------------------------------------
# An install's folder made to look like a toolkit (root may write into its read-only folders)
IN=$CDM_ROOT/$ID
chmod u+w "$IN"
printf '{\n  "cuda": {"name": "CUDA SDK", "version": "12.3.107"}\n}\n' >"$IN/version.json"
in_before=$(cd "$IN" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
run_cdm deploy 9.1 --into "$IN"
expect_rc 2 "deploying into an install's own folder is refused"
expect_err "cannot deploy into '.*$ID': it is inside the store" "saying why"
check "and the install is untouched" test "$(cd "$IN" && find . -type f -print0 | sort -z | xargs -0 sha256sum)" = "$in_before"
rm -f "$IN/version.json"
chmod u-w "$IN"

done_testing
