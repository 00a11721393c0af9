# Hostile and broken zips under cdm.exe: refused with the entry named, nothing left,
# nothing written where the entry pointed (on Wine, C: is the prefix's drive_c).
. "$TESTS_DIR/win/lib.sh"

zipname=cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip
nothing_left() {
  [ ! -e "$CDM_ROOT_POSIX/8.8.0.121-cuda11" ] && [ -z "$(ls -A "$CDM_ROOT_POSIX/.staging" 2>/dev/null)" ] &&
    [ "$("$WINE" "$CDM_EXE" list --json | tr -d '\r')" = "[]" ]
}
refused() { # refused KIND ENTRY_PATTERN
  local a
  mkdir -p "$SCRATCH/archives/$1"
  a=$(fixture "$1/$zipname" --evil "$1")
  run_cdm install "$(wpath "$a")"
  expect_rc 1 "$1: refused"
  expect_err "$2" "$1: the message names the entry and why"
  check "$1: nothing is left in the store" nothing_left
}

refused absolute "entry '/tmp/cdm-evil-absolute' is an absolute path"
check "absolute: nothing at Z:\\tmp\\cdm-evil-absolute" test ! -e /tmp/cdm-evil-absolute
refused drive "entry 'C:/Windows/cdm-evil-drive' names a drive"
check "drive: nothing in the Wine prefix's C:\\Windows" test ! -e "$WINEPREFIX/drive_c/windows/cdm-evil-drive"
refused dotdot "goes up with '\\.\\.'"
check "dotdot: nothing above the version folder" test ! -e "$CDM_ROOT_POSIX/cdm-evil-dotdot" -a ! -e "$CDM_ROOT_POSIX/.staging/cdm-evil-dotdot"
# A zip marks its links in the central directory at its end: cdm reads it first, and
# judges them as a tar's (tests/cli/hostile.sh has the rest of the link cases).
refused chain-escape "lib/up' \\(a link to '..'\\) does not point to a name beside it"
refused link-unc "lib/evil-link' .* points to an absolute path"

# Backslashes are separators on Windows: entries using them to climb or to name a root.
with_entry() { # with_entry NAME ENTRY: the good fixture plus one entry, raw
  mkdir -p "$SCRATCH/archives/$1"
  local a
  a=$(fixture "$1/$zipname") || return 1
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "a").writestr(sys.argv[2], "owned\n")' "$a" "$2"
  printf '%s\n' "$a"
}
backslash() { # backslash NAME ENTRY ENTRY_PATTERN
  run_cdm install "$(wpath "$(with_entry "$1" "$2")")"
  expect_rc 1 "$1: refused"
  expect_err "$3" "$1: the message names the entry and why"
  check "$1: nothing is left in the store" nothing_left
}
top=${zipname%.zip}
backslash backslash-dotdot "$top\\..\\..\\cdm-evil-bs" "goes up with '\\.\\.'"
check "backslash-dotdot: nothing above the version folder" test ! -e "$CDM_ROOT_POSIX/cdm-evil-bs" -a ! -e "$CDM_ROOT_POSIX/.staging/cdm-evil-bs"
backslash backslash-root '\cdm-evil-root' "is an absolute path"
check "backslash-root: nothing at Z:\\cdm-evil-root" test ! -e /cdm-evil-root
backslash unc '\\server\share\cdm-evil-unc' "is an absolute path"
backslash stream "$top\\lib\\x64\\cudnn.lib:evil" "NTFS stream"
refused two-tops "other-top/file' is not below the archive's top folder"

good=$(fixture "$zipname" --pad 50000)
mkdir -p "$SCRATCH/corrupt"
bad=$SCRATCH/corrupt/$zipname
cp "$good" "$bad"
printf 'garbage-garbage-garbage-garbage' | dd of="$bad" bs=1 seek=$(($(stat -c %s "$bad") / 3)) conv=notrunc status=none
run_cdm install "$(wpath "$bad")"
expect_rc 1 "a corrupt zip is refused"
check "corrupt: nothing is left" nothing_left
head -c 1000 "$good" >"$bad"
run_cdm install "$(wpath "$bad")"
expect_rc 1 "a zip cut after 1000 bytes is refused"
check "cut: nothing is left" nothing_left
run_cdm install "$(wpath "$good")"
expect_rc 0 "the intact zip installs after all that"

done_testing
