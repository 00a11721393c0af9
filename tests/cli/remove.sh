# cdm remove: by version spec, never following links out of the store.
. "$TESTS_DIR/cli/lib.sh"

"$CDM" install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)" >/dev/null 2>&1
"$CDM" install "$(fixture cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz)" >/dev/null 2>&1
"$CDM" install "$(fixture cudnn-linux-x86_64-8.9.7.29_cuda11-archive.tar.xz)" >/dev/null 2>&1
run_cdm list --json
check "three installs to start with" test "$(json 'len(d)')" = 3

run_cdm remove 8.9
expect_rc 1 "a spec matching two CUDA variants is refused"
expect_err "8.9.7.29-cuda11, 8.9.7.29-cuda12.*--cuda" "listing both and asking for --cuda"
run_cdm remove 8.9 --cuda 11 --json
expect_rc 0 "--cuda 11 picks one"
check "remove --json names it" test "$(json 'd["id"]')" = 8.9.7.29-cuda11
check "its folder is gone" test ! -e "$CDM_ROOT/8.9.7.29-cuda11"
check "the other variant stays" test -d "$CDM_ROOT/8.9.7.29-cuda12"

run_cdm remove 7.6
expect_rc 1 "removing a version that is not installed fails"
expect_err "cannot remove 7.6: no installed version matches it" "saying so"
run_cdm remove not-a-version
expect_rc 2 "a malformed version is a usage error"

# A link inside a store folder that points outside: deleting must not follow it.
outside=$SCRATCH/precious
mkdir -p "$outside/sub"
echo keep >"$outside/sub/file"
ln -s "$outside" "$CDM_ROOT/9.1.0.70-cuda12/lib/escape"
run_cdm remove 9.1.0.70-cuda12
expect_rc 0 "remove by full id"
check "the store folder is gone" test ! -e "$CDM_ROOT/9.1.0.70-cuda12"
check "what the link inside pointed to is untouched" test "$(cat "$outside/sub/file")" = keep

# A version folder deleted by hand: remove still drops the record.
rm -rf "$CDM_ROOT/8.9.7.29-cuda12"
run_cdm remove latest
expect_rc 0 "removing a version whose folder was deleted by hand"
run_cdm list --json
check "the store is empty" test "$OUT" = "[]"
check "nothing is left in .staging" empty_dir "$CDM_ROOT/.staging"

done_testing
