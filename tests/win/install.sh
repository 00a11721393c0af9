# cdm.exe under Wine: install, list and remove Windows zips; non-ASCII and long store
# paths; the lock and crash recovery on Windows' file system calls.
. "$TESTS_DIR/win/lib.sh"

run_cdm --version
check "cdm.exe runs under Wine" test "$OUT" = "cdm 0.1.0"

win88=$(fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip)
check "the 8.8.0 zip fixture has the 31 real entries" test "$(bsdtar -tf "$win88" | grep -vc '/$')" -eq 31
run_cdm install "$(wpath "$win88")" --json
expect_rc 0 "the 8.8.0 zip installs (no --platform: this is Windows)"
check "install --json: id, cuda, changed" \
  test "$(json 'd["id"], d["cuda"], d["changed"]')" = "('8.8.0.121-cuda11', 11, True)"
check "the sha256 comes from BCrypt and is the archive's" \
  test "$(json 'd["sha256"]')" = "$(sha256sum "$win88" | cut -d' ' -f1)"
check "the path is a Windows path, without '/'" \
  test "$(json 'd["path"]')" = "$CDM_ROOT\\8.8.0.121-cuda11"
dir88=$CDM_ROOT_POSIX/8.8.0.121-cuda11
check "7 DLLs in bin, 14 import libraries in lib\\x64, 9 headers" \
  test "$(ls "$dir88/bin" | grep -c 'dll$') $(ls "$dir88/lib/x64" | grep -c 'lib$') $(ls "$dir88/include" | grep -c 'h$')" = "7 14 9"
check "nothing is left in .staging" test -z "$(ls -A "$CDM_ROOT_POSIX/.staging")"
run_cdm install "$(wpath "$win88")" --json
check "the same zip again: changed false" test "$(json 'd["changed"]')" = False

win918=$(fixture cudnn-windows-x86_64-9.18.0.20_cuda13-archive.zip)
run_cdm install "$(wpath "$win918")"
expect_rc 0 "the 9.18 zip installs"
check "its DLLs are in bin\\x64" test "$(ls "$CDM_ROOT_POSIX/9.18.0.20-cuda13/bin/x64" | grep -c 'dll$')" -eq 8
run_cdm list --json
check "list --json: both, in version order, 9.18 with bin/x64" \
  test "$(json '[(i["id"], i["bin_dir"], i["lib_dir"]) for i in d]')" = "[('8.8.0.121-cuda11', 'bin', 'lib/x64'), ('9.18.0.20-cuda13', 'bin/x64', 'lib/x64')]"
run_cdm list
check "list as a table" sh -c 'printf "%s" "$1" | grep -q "9.18.0.20-cuda13 .*windows-x86_64"' _ "$OUT"

linux=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
run_cdm install "$(wpath "$linux")"
expect_rc 1 "a Linux tar.xz is refused on Windows"
expect_err "is for linux-x86_64 but this store is for windows-x86_64" "naming both platforms"
run_cdm install "$(wpath "$linux")" --platform linux-x86_64
expect_rc 1 "with --platform linux-x86_64 it still cannot be read"
expect_err "reads no \\.tar\\.xz .*use NVIDIA's \\.zip" "saying that this build reads no .tar.xz"
check "and leaves nothing" test ! -e "$CDM_ROOT_POSIX/9.1.0.70-cuda12" -a -z "$(ls -A "$CDM_ROOT_POSIX/.staging")"

run_cdm remove 9.18 --json
expect_rc 0 "remove 9.18"
check "its folder is gone" test ! -e "$CDM_ROOT_POSIX/9.18.0.20-cuda13"
run_cdm remove 7.6
expect_rc 1 "removing a version that is not installed fails"
expect_err "cannot remove 7.6: no installed version matches it" "saying so"

# Non-ASCII: a store and an archive folder named in three scripts (UTF-16 at Win32).
name='store-donn\303\251es-\346\227\245\346\234\254-\320\264'
# shellcheck disable=SC2059 # the name is a format: its octal escapes are its UTF-8 bytes
uroot=$SCRATCH/$(printf "$name")
uarch=$SCRATCH/$(printf 'archives-\303\251')
mkdir -p "$uarch"
cp "$win88" "$uarch/"
CDM_ROOT=$(wpath "$uroot") run_cdm install "$(wpath "$uarch/$(basename "$win88")")" --json
expect_rc 0 "install from and into non-ASCII folders"
check "the folder has the right UTF-8 name on the Linux side" test -f "$uroot/8.8.0.121-cuda11/bin/cudnn64_8.dll"
check "--json prints the path in UTF-8" test "$(json 'd["path"]')" = "$(wpath "$uroot")\\8.8.0.121-cuda11"
CDM_ROOT=$(wpath "$uroot") run_cdm list
# shellcheck disable=SC2059 # the name is a format: its octal escapes are its UTF-8 bytes
check "the table shows the non-ASCII path" sh -c 'printf "%s" "$1" | grep -q "$2"' _ "$OUT" "$(printf "$name")"
CDM_ROOT=$(wpath "$uroot") run_cdm remove 8.8 --json
expect_rc 0 "and remove there"

# Past MAX_PATH (260): the store 300 characters deep.
deep=$SCRATCH
for i in 1 2 3 4 5 6 7 8 9 10; do deep=$deep/level-$i-abcdefghijklmnopqrstuv; done
CDM_ROOT=$(wpath "$deep") run_cdm install "$(wpath "$win918")" --json
expect_rc 0 "install into a store $(wpath "$deep/9.18.0.20-cuda13/bin/x64/cudnn_engines_precompiled64_9.dll" | wc -c) characters deep"
check "the deepest file is there" test -f "$deep/9.18.0.20-cuda13/bin/x64/cudnn64_9.dll"
CDM_ROOT=$(wpath "$deep") run_cdm remove 9.18
expect_rc 0 "and remove it"
check "all of it" test -z "$(ls -A "$deep" | grep -v -e cdm.db -e '^\.')"

# Writers serialise on LockFileEx: parallel installs all land and the index stays whole.
for v in 9.10.0.1 9.10.1.2 9.10.2.3; do
  f=$(fixture "cudnn-windows-x86_64-${v}_cuda12-archive.zip" --pad 200000)
  "$WINE" "$CDM_EXE" install "$(wpath "$f")" >/dev/null 2>"$SCRATCH/par-$v.err" &
done
wait
run_cdm list --json
check "3 parallel installs all landed" \
  test "$(json 'len([i for i in d if i["version"].startswith("9.10.")])')" = 3
check "and the index passes SQLite's integrity check" \
  test "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma integrity_check").fetchone()[0])' "$CDM_ROOT_POSIX/cdm.db")" = ok

# A crash (TerminateProcess) after the record, before the rename: gc finishes the install.
crash=$(fixture cudnn-windows-x86_64-9.2.0.82_cuda12-archive.zip)
CDM_CRASH_AT=recorded run_cdm install "$(wpath "$crash")"
expect_rc 137 "a crash point stops cdm.exe with status 137"
check "the version is not in place yet" test ! -e "$CDM_ROOT_POSIX/9.2.0.82-cuda12"
run_cdm gc
expect_rc 0 "gc after the crash"
check "gc finished the install" test -f "$CDM_ROOT_POSIX/9.2.0.82-cuda12/bin/cudnn64_9.dll"
CDM_CRASH_AT=remove-recorded run_cdm remove 9.2
run_cdm gc
check "a remove killed half way is finished by gc" test ! -e "$CDM_ROOT_POSIX/9.2.0.82-cuda12" -a -z "$(ls -A "$CDM_ROOT_POSIX/.staging")"

done_testing
