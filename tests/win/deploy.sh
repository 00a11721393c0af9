# cdm deploy under Wine: the Windows layout (bin, include, lib\x64) copied over a stand-in
# toolkit folder, and --undo putting it back byte for byte. (The Restart Manager under
# Wine names no process, so a DLL in use is tested only on Windows.)
. "$TESTS_DIR/win/lib.sh"

if ! has_command deploy; then
  skip "cdm deploy under Wine" "cdm deploy is not in this build"
  done_testing
  exit
fi
"$WINE" "$CDM_EXE" install "$(wpath "$(fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip)")" >/dev/null 2>&1
TK=$SCRATCH/v11.8
mkdir -p "$TK/bin" "$TK/include" "$TK/lib/x64"
printf '{"cuda": {"name": "CUDA SDK", "version": "11.8.89"}}\n' >"$TK/version.json"
echo 'cudart' >"$TK/bin/cudart64_110.dll"
echo 'old' >"$TK/bin/cudnn64_8.dll"
echo '/* old */' >"$TK/include/cudnn.h"
echo 'lib' >"$TK/lib/x64/cudart.lib"
digest() { (cd "$TK" && find . -printf '%y %p\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(digest)

run_cdm --json deploy 8.8.0 --into "$(wpath "$TK")"
expect_rc 0 "cdm deploy 8.8.0 into a CUDA 11.8 toolkit under Wine"
check "two of the toolkit's files replaced" test "$(json 'd["replaced"]')" = 2
check "the DLL went into bin" cmp -s "$TK/bin/cudnn64_8.dll" "$CDM_ROOT_POSIX/8.8.0.121-cuda11/bin/cudnn64_8.dll"
check "the import library into lib\\x64" test -f "$TK/lib/x64/cudnn.lib"
run_cdm --json deploy --undo "$(wpath "$TK")"
expect_rc 0 "cdm deploy --undo under Wine"
check "the toolkit is back byte for byte" test "$(digest)" = "$before"
done_testing
