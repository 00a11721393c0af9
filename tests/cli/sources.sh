# cdm install VERSION: finding the archive in the folders of [install] sources.
. "$TESTS_DIR/cli/lib.sh"

s1=$SCRATCH/downloads
s2=$SCRATCH/share
mkdir -p "$s1" "$s2"
"$MAKE_FIXTURE" "$s1/cudnn-linux-x86_64-8.8.0.121_cuda11-archive.tar.xz"
"$MAKE_FIXTURE" "$s2/cudnn-linux-x86_64-8.8.0.121_cuda12-archive.tar.xz"
"$MAKE_FIXTURE" "$s2/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
"$MAKE_FIXTURE" "$s2/cudnn-windows-x86_64-9.6.0.74_cuda12-archive.zip"
"$MAKE_FIXTURE" "$s1/cudnn-11.3-linux-x64-v8.2.1.32.tgz"

run_cdm install 9.1
expect_rc 1 "without sources a version cannot be found"
expect_err "give the archive's path, or list folders under \\[install\\] sources" "and says how to fix it"

printf '[install]\nsources = %s\n    %s\n' "$s1" "$s2" >"$CDM_CONFIG"
run_cdm install 9.1 --json
expect_rc 0 "9.1 is found in the second source folder"
check "and installed as 9.1.0.70-cuda12" test "$(json 'd["id"]')" = 9.1.0.70-cuda12

run_cdm install 8.8.0
expect_rc 1 "8.8.0 matches a cuda11 and a cuda12 archive"
expect_err "cuda11-archive.tar.xz, .*cuda12-archive.tar.xz.*--cuda" "both are listed, with the fix"
run_cdm install 8.8.0 --cuda 12 --json
expect_rc 0 "--cuda 12 chooses"
check "the cuda12 one" test "$(json 'd["id"]')" = 8.8.0.121-cuda12
run_cdm install 8.8.0.121-cuda11 --json
check "a full id as the version works" test "$(json 'd["id"]')" = 8.8.0.121-cuda11

run_cdm install 9.6
expect_rc 1 "a Windows-only version is not found on Linux"
expect_err "no linux-x86_64 archive of cuDNN 9.6" "saying which platform was looked for"
run_cdm install 9.6 --platform windows-x86_64 --json
expect_rc 0 "but is with --platform windows-x86_64"

run_cdm install 8.2 --json
expect_rc 0 "old-style names are found too"
check "8.2.1.32-cuda11" test "$(json 'd["id"]')" = 8.2.1.32-cuda11

# Repeated keys work like continuation lines.
printf '[install]\nsources = %s\nsources = %s\n' "$s2" "$s1" >"$CDM_CONFIG"
run_cdm install latest --json
expect_rc 0 "latest"
check "latest is the highest version on this platform" test "$(json 'd["id"]')" = 9.1.0.70-cuda12
run_cdm install 12.0
expect_rc 1 "a version nobody has"
expect_err "no linux-x86_64 archive of cuDNN 12.0 in the source folders" "names the search"

done_testing
