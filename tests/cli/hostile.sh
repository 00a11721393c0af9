# Hostile, truncated and oversized archives are refused, naming the entry, leaving nothing.
. "$TESTS_DIR/cli/lib.sh"

# nothing_left ID: no version folder, nothing in .staging, no record
nothing_left() {
  [ ! -e "$CDM_ROOT/$1" ] && [ -z "$(ls -A "$CDM_ROOT/.staging" 2>/dev/null)" ] &&
    [ "$("$CDM" list --json)" = "[]" ]
}

refused() { # refused KIND ENTRY_PATTERN ARCHIVE_NAME [install options]
  local kind=$1 pattern=$2 name=$3
  shift 3
  local a
  a=$(fixture "$name" --evil "$kind")
  run_cdm install "$a" "$@"
  expect_rc 1 "$kind: refused"
  expect_err "$pattern" "$kind: the message names the entry and why"
  check "$kind: nothing is left in the store" nothing_left "$(printf '%s' "$name" | sed 's/^cudnn-[a-z]*-[a-z0-9_]*-\([0-9.]*\)_cuda\([0-9]*\).*/\1-cuda\2/')"
}

tx=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
refused absolute "entry '/tmp/cdm-evil-absolute' is an absolute path" "$tx"
check "absolute: nothing was written at the absolute path" test ! -e /tmp/cdm-evil-absolute
refused dotdot "goes up with '\\.\\.'" "$tx"
check "dotdot: nothing was written above the store" test ! -e "$CDM_ROOT/cdm-evil-dotdot" -a ! -e "$CDM_ROOT/.staging/cdm-evil-dotdot"
refused drive "entry 'C:/Windows/cdm-evil-drive' names a drive" cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip --platform windows-x86_64
refused device "lib/evil-device' is a device" "$tx"
refused fifo "lib/evil-fifo' is a fifo" "$tx"
refused symlink-out "lib/evil-link' is a link that points outside" "$tx"
refused symlink-abs "lib/evil-link' is a link that points outside" "$tx"
refused through-link "lib/up/through-link' lies below a symbolic link" "$tx"
refused hardlink-out "lib/evil-hardlink' is a hard link to a file outside" "$tx"
refused two-tops "other-top/file' is not below the archive's top folder" "$tx"

# Truncated and corrupt archives.
good=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz --pad 200000)
mkdir -p "$SCRATCH/cut"
cut=$SCRATCH/cut/$(basename "$good")
head -c $(($(stat -c %s "$good") / 2)) "$good" >"$cut"
run_cdm install "$cut"
expect_rc 1 "a truncated tar.xz is refused"
expect_err "damaged or incomplete" "saying the file is damaged or incomplete"
check "truncated: nothing is left" nothing_left 9.2.0.82-cuda12

zip=$(fixture cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip --pad 50000)
mkdir -p "$SCRATCH/corrupt"
bad=$SCRATCH/corrupt/$(basename "$zip")
cp "$zip" "$bad"
printf 'garbage-garbage-garbage-garbage' | dd of="$bad" bs=1 seek=$(($(stat -c %s "$bad") / 3)) conv=notrunc status=none
run_cdm install "$bad" --platform windows-x86_64
expect_rc 1 "a corrupt zip is refused"
check "corrupt: nothing is left" nothing_left 8.9.7.29-cuda12
head -c 1000 "$zip" >"$SCRATCH/corrupt/cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip"
run_cdm install "$SCRATCH/corrupt/cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip" --platform windows-x86_64
expect_rc 1 "a zip cut after 1000 bytes is refused"
printf 'not an archive at all\n' >"$SCRATCH/corrupt/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
run_cdm install "$SCRATCH/corrupt/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
expect_rc 1 "a text file with an archive's name is refused"
expect_err "cannot read archive" "saying it cannot be read"

# Limits from the config: total size and entry count.
printf '[install]\nmax_size = 100K\n' >"$CDM_CONFIG"
run_cdm install "$good"
expect_rc 1 "an archive that unpacks past [install] max_size is refused"
expect_err "more than 102400 bytes" "naming the limit"
check "max_size: nothing is left" nothing_left 9.2.0.82-cuda12
printf '[install]\nmax_entries = 5\n' >"$CDM_CONFIG"
run_cdm install "$good"
expect_rc 1 "an archive with more entries than [install] max_entries is refused"
expect_err "more than 5 entries" "naming the limit"
: >"$CDM_CONFIG"
run_cdm install "$good"
expect_rc 0 "the same archive installs within the default limits"

done_testing
