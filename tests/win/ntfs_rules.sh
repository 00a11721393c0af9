# Per-file attach of a Windows torch\lib under NTFS's rules, which Wine does not enforce:
# cdm.exe runs under the NTFS-rules model (CDM_TEST_NTFS_RULES=1, fs_read_only_win32.h),
# where a rename over a read-only file is refused as NTFS refuses it (Wine refuses to delete
# one, and hard links share the attribute, as NTFS does). The store's files are read-only,
# and a torch\lib DLL attached is the store's file by another name, so a switch replaces a
# read-only file and a detach deletes one. Attach, switch, rollback, detach, and a kill at
# each of their steps succeed, and the store's files keep their read-only attribute
# throughout; `cdm verify` fails an install whose attribute was cleared by hand.
. "$TESTS_DIR/win/lib.sh"

if ! junctions_work; then
  skip "per-file attach under NTFS's rules" \
    "junctions cannot be made here (stock Wine 8), so no project link exists to attach to"
  done_testing
  exit
fi
export CDM_TEST_NTFS_RULES=1 # as for every Windows scenario (tests/meson.build); said again here
A=9.19.0.56-cuda12 B=9.20.0.48-cuda12 # both keep their DLLs in bin\x64
run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.19.0.56_cuda12-archive.zip --version 9.19.0.56)")"
run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.20.0.48_cuda12-archive.zip --version 9.20.0.48)")"
run_cdm list --json
check "9.19 and 9.20 installed" test "$(json 'sorted(i["id"] for i in d)')" = "['$A', '$B']"
dll_of() { find "$CDM_ROOT_POSIX/$1" -name cudnn64_9.dll | head -n 1; }
DA=$(dll_of "$A") DB=$(dll_of "$B")
# every file of both installs without a write bit: Wine keeps the read-only attribute as
# the Unix mode, the same for every hard link of the file
writable_files() { find "$CDM_ROOT_POSIX/$A" "$CDM_ROOT_POSIX/$B" -type f -perm /222 | wc -l; }
check "the store's files are read-only" test "$(writable_files)" = 0 -a -n "$DA" -a -n "$DB"

P=$SCRATCH/proj
D=$SCRATCH/venv
DS=$D/Lib/site-packages
mkdir -p "$P" "$DS/torch/lib"
printf 'home = C:\\Python312\n' >"$D/pyvenv.cfg"
dists "$DS" torch 2.5.1 ""
echo "torch's own cuDNN" >"$DS/torch/lib/cudnn64_9.dll"
before=$(tree_digest "$D"; sha256sum "$DS/torch/lib/cudnn64_9.dll" | cut -c1-64)
now() { tree_digest "$D"; sha256sum "$DS/torch/lib/cudnn64_9.dll" | cut -c1-64; }
T=$DS/torch/lib/cudnn64_9.dll
run_cdm link "$(wpath "$P")" "$A"
expect_rc 0 "the project links 9.19"

# ---- the whole round --------------------------------------------------------------------------
run_cdm attach "$(wpath "$D")" "$(wpath "$P")"
expect_rc 0 "torch\\lib attaches"
check "torch\\lib\\cudnn64_9.dll is the store's 9.19 file by another name" test "$T" -ef "$DA"
check "and the store's files are still read-only" test "$(writable_files)" = 0
run_cdm link "$(wpath "$P")" "$B"
expect_rc 0 "a switch to 9.20 (a rename over a read-only file)"
check "without a warning that torch still leads to the old install" \
  sh -c '! printf "%s" "$1" | grep -q "still leads"' _ "$ERR"
check "torch\\lib now holds the store's 9.20 file" test "$T" -ef "$DB"
check "the store's files are still read-only after the switch" test "$(writable_files)" = 0
run_cdm rollback "$(wpath "$P")"
expect_rc 0 "rollback"
check "torch\\lib holds 9.19 again" test "$T" -ef "$DA"
check "the store's files are still read-only after the rollback" test "$(writable_files)" = 0
run_cdm detach "$(wpath "$D")"
expect_rc 0 "detach (a delete of a read-only file)"
check "the environment is byte for byte as before" test "$(now)" = "$before"
check "the store's files are still read-only after the detach" test "$(writable_files)" = 0

# ---- a kill at each step ------------------------------------------------------------------------
# After the kill, the next command finishes or undoes the work (recovery), then the round
# goes on; the store's files are read-only at every point.
for at in attach-moved attach-linked attach-recorded attach-done; do
  CDM_CRASH_AT=$at run_cdm attach "$(wpath "$D")" "$(wpath "$P")"
  check "attach killed at $at (status 137)" test "$RC" = 137
  check "killed at $at: the store's files are read-only" test "$(writable_files)" = 0
  run_cdm list
  check "after recovery ($at): read-only still" test "$(writable_files)" = 0
  run_cdm attach "$(wpath "$D")" "$(wpath "$P")"
  run_cdm detach "$(wpath "$D")"
  expect_rc 0 "after a kill at $at, attach again and detach"
  check "and the environment is as before ($at)" test "$(now)" = "$before"
done
for at in link-recorded link-switched link-followed; do
  run_cdm attach "$(wpath "$D")" "$(wpath "$P")"
  CDM_CRASH_AT=$at run_cdm link "$(wpath "$P")" "$B"
  check "switch killed at $at (status 137)" test "$RC" = 137
  run_cdm list
  check "after recovery ($at): torch\\lib holds one install's file, read-only" \
    sh -c '{ [ "$1" -ef "$2" ] || [ "$1" -ef "$3" ]; } && [ "$4" = 0 ]' _ "$T" "$DA" "$DB" "$(writable_files)"
  run_cdm link "$(wpath "$P")" "$B"
  check "the switch done after the kill at $at: torch\\lib holds 9.20" test "$T" -ef "$DB"
  run_cdm link "$(wpath "$P")" "$A"
  run_cdm detach "$(wpath "$D")"
  check "detached after the kill at $at: as before, the store read-only" \
    test "$(now)" = "$before" -a "$(writable_files)" = 0
done
for at in detach-unlinked detach-moved detach-recorded; do
  run_cdm attach "$(wpath "$D")" "$(wpath "$P")"
  CDM_CRASH_AT=$at run_cdm detach "$(wpath "$D")"
  check "detach killed at $at (status 137)" test "$RC" = 137
  check "killed at $at: the store's files are read-only" test "$(writable_files)" = 0
  run_cdm list
  run_cdm detach "$(wpath "$D")"
  check "after the kill at $at the environment comes back as before, the store read-only" \
    test "$(now)" = "$before" -a "$(writable_files)" = 0
done

# ---- verify ---------------------------------------------------------------------------------------
run_cdm verify
expect_rc 0 "verify passes with every attribute as installed"
"$WINE" cmd /c attrib -R "$(wpath "$DA")" >/dev/null 2>&1
check "attrib -R cleared the attribute by hand" test "$(find "$DA" -perm /222 | wc -l)" = 1
run_cdm verify
check "verify fails the install whose file lost its read-only attribute" test "$RC" -ne 0
check "naming the file and what changed" \
  sh -c 'printf "%s\n%s" "$1" "$2" | grep -q "cudnn64_9.dll.*read-only attribute was cleared"' _ "$OUT" "$ERR"
"$WINE" cmd /c attrib +R "$(wpath "$DA")" >/dev/null 2>&1
run_cdm verify
expect_rc 0 "and passes once it is back"
done_testing
