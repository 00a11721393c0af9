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
refused symlink-out "lib/evil-link' \\(a link to '../../../etc'\\) does not point to a name beside it" "$tx"
refused symlink-abs "lib/evil-link' \\(a link to '/etc/passwd'\\) points to an absolute path" "$tx"
refused through-link "lib/up/through-link' lies below a link of the archive" "$tx"
refused hardlink-out "lib/evil-hardlink' \\(a hard link to '/etc/passwd'\\) points to an absolute path" "$tx"

# Links: only a name beside the link, naming a file (or a link to one) of the archive, in
# any order; every other link is refused by name, whatever a lexical check of it alone says.
refused chain-escape "lib/up' \\(a link to '..'\\) does not point to a name beside it" "$tx"
# (the link's name is lib/evil-link: what is looked for is that name anywhere, a link to
# nothing included, not a path beside the store that no entry could ever make)
check "chain-escape: no link of it was left anywhere" test -z "$(find "$SCRATCH" -name 'evil-link*')"
refused link-drive "points to an absolute path" "$tx"
refused link-drive-relative "points to a drive or an NTFS stream" "$tx"
refused link-unc "points to an absolute path" "$tx"
refused link-long-path "points to an absolute path" "$tx"
refused link-other-install "lib/evil-link' .* does not point to a name beside it" "$tx"
refused link-subfolder "lib/evil-link' \\(a link to '../include/cudnn.h'\\) does not point" "$tx"
refused link-dot "lib/evil-link' \\(a link to '.'\\) does not point to a name beside it" "$tx"
refused link-nothing "lib/evil-link' \\(a link to 'libnothing.so.9'\\) points to nothing beside it in the archive" "$tx"
refused link-folder "lib/evil-link' \\(a link to 'sub'\\) points to a folder" "$tx"
refused link-loop "lib/evil-link' \\(a link to 'evil-loop'\\) is part of a loop of links" "$tx"
refused hardlink-other-folder "lib/evil-hardlink' \\(a hard link to '.*/include/cudnn.h'\\) does not point to a name beside it" "$tx"
# The same checks on a zip's links (a zip records a link as its target's bytes).
refused chain-escape "lib/up' \\(a link to '..'\\) does not point to a name beside it" cudnn-linux-x86_64-9.1.0.70_cuda12-archive.zip
refused link-nothing "points to nothing beside it in the archive" cudnn-linux-x86_64-9.1.0.70_cuda12-archive.zip

zl=$(fixture cudnn-linux-x86_64-9.4.0.58_cuda12-archive.zip --evil links-first)
run_cdm install "$zl"
expect_rc 0 "a zip's links beside their files install"
check "as links, not as files holding their targets" \
  test "$(readlink "$CDM_ROOT/9.4.0.58-cuda12/lib/libcudnn.so.9")" = libcudnn.so.9.4.0
run_cdm remove 9.4.0.58

for order in links-first hardlink-sibling; do
  a=$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz --evil $order)
  run_cdm install "$a"
  expect_rc 0 "$order: links beside their files install"
  check "$order: libcudnn.so reaches the library through libcudnn.so.9" \
    test "$(readlink "$CDM_ROOT/9.3.0.75-cuda12/lib/libcudnn.so")" = libcudnn.so.9 -a -f "$CDM_ROOT/9.3.0.75-cuda12/lib/libcudnn.so"
  run_cdm verify 9.3.0.75
  expect_rc 0 "$order: verify finds the install as recorded"
  if [ $order = hardlink-sibling ]; then
    check "hardlink-sibling: the hard link is the file's twin" \
      test "$CDM_ROOT/9.3.0.75-cuda12/lib/libcudnn_static_copy.a" -ef "$CDM_ROOT/9.3.0.75-cuda12/lib/libcudnn_static.a"
  fi
  run_cdm remove 9.3.0.75
done
refused two-tops "other-top/file' is not below the archive's top folder" "$tx"

# Headers: the version the compiler would see (comments and #if 0 do not count), and every
# header that gives one agreeing with the others.
refused header-if0 "its name says cuDNN 9.1.0 but its header says 9.2.0" "$tx"
refused header-comment "its name says cuDNN 9.1.0 but its header says 9.2.0" "$tx"
refused header-two-versions "its headers disagree: 'include/cudnn_version.h' says cuDNN 9.1.0 but 'targets/x86_64-linux/include/cudnn_version.h' says 9.2.0" "$tx"
refused header-cudnn-h-disagrees "its headers disagree: 'include/cudnn.h' says cuDNN 9.2.0 but 'include/cudnn_version.h' says 9.1.0" "$tx"

# Truncated and corrupt archives.
good=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz --pad 200000)
mkdir -p "$SCRATCH/cut"
cut=$SCRATCH/cut/$(basename "$good")
head -c $(($(stat -c %s "$good") / 2)) "$good" >"$cut"
run_cdm install "$cut"
expect_rc 1 "a truncated tar.xz is refused"
expect_err "damaged or incomplete" "saying the file is damaged or incomplete"
check "with the plain words first, libarchive's only after them" \
  sh -c 'case "$1" in *": it is damaged or incomplete; download it again (libarchive: "*)
    ! printf "%s" "${1%%(libarchive:*}" | grep -qi lzma ;; *) false ;; esac' _ "$ERR"
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
# An archive of no entries at all, of both kinds (the zip reader refuses one before its walk)
mkdir -p "$SCRATCH/empty"
tar -cJf "$SCRATCH/empty/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz" -T /dev/null
run_cdm install "$SCRATCH/empty/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
expect_rc 1 "an empty .tar.xz is refused"
expect_err "the archive is empty" "saying it is empty"
check "empty .tar.xz: nothing is left" nothing_left 9.1.0.70-cuda12
printf 'PK\005\006%018d' 0 | tr 0 '\000' >"$SCRATCH/empty/cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip"
run_cdm install "$SCRATCH/empty/cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip" --platform windows-x86_64
expect_rc 1 "an empty .zip is refused"

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

# A version header past the part cdm keeps of it (1 MiB): a long comment, then macros that
# disagree with the real header; judged on a cut text they would go unseen.
for n in cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz cudnn-windows-x86_64-9.3.0.75_cuda12-archive.zip; do
  mkdir -p "$SCRATCH/big"
  python3 - "$SCRATCH/big/$n" <<'PY'
import io, sys, tarfile, zipfile
out = sys.argv[1]
top = out.rsplit("/", 1)[1].split(".tar")[0].split(".zip")[0]
real = b"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 3\n#define CUDNN_PATCHLEVEL 0\n"
big = b"/*" + b"x" * 1200000 + b"*/\n#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 9\n"
lib = "bin/cudnn64_9.dll" if out.endswith(".zip") else "lib/libcudnn.so.9.3.0"
files = {"include/cudnn_version.h": real, "include/extra/cudnn.h": big, lib: b"\x7fELF stand-in"}
if out.endswith(".zip"):
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for rel, data in files.items():
            z.writestr(top + "/" + rel, data)
else:
    with tarfile.open(out, "w:xz") as t:
        for rel, data in files.items():
            info = tarfile.TarInfo(top + "/" + rel)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
PY
  platform=${n#cudnn-}
  platform=${platform%%-9.3*}
  run_cdm install "$SCRATCH/big/$n" --platform "$platform"
  expect_rc 1 "a version header over 1 MiB is refused (${n##*.})"
  expect_err "its header 'include/extra/cudnn\\.h' is 1024 KiB or more" "saying so (${n##*.})"
  check "and nothing is left (${n##*.})" \
    test ! -e "$CDM_ROOT/9.3.0.75-cuda12" -a -z "$(ls -A "$CDM_ROOT/.staging")"
done

done_testing
