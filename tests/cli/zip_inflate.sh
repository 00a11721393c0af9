# A zip's entries inflated by cdm's own workers (zip_directory.c, zip_pipe.c, inflate.c):
# with ISA-L where the system has libisal.so.2 and with zlib, zips as Python's zipfile and
# Info-ZIP write them (deflated and stored entries, links, a zip64 directory, a file large
# enough to be hashed and written on a second thread) install the same files byte for
# byte as Python's own reader gives them; entries of another method (bzip2) go through
# libarchive; damaged data, a wrong CRC-32 and a cut-short zip are refused with plain words
# and nothing installed.
. "$TESTS_DIR/cli/lib.sh" || exit 1

src=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
name=$(basename "$src" .tar.xz)
mkdir -p "$SCRATCH/tree" "$SCRATCH/zips"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$src" "$SCRATCH/tree"
# 24 MB that compress as a library does (random bytes in base64, then zeros): past the size
# at which a second thread hashes and writes
(head -c 12000000 /dev/urandom | base64 -w0; head -c 8000000 /dev/zero) \
  >"$SCRATCH/tree/$name/lib/libcudnn_big.so.9.1.0"

# make_zip OUT [zip64|bzip2]: the tree as Python's zipfile writes it, libraries deflated,
# headers stored (bzip2: compressed with bzip2), links as Info-ZIP records them (mode in the
# external attributes, target as data)
make_zip() {
  python3 - "$SCRATCH/tree" "$name" "$@" <<'PY'
import os, sys, zipfile
tree, top, out = sys.argv[1], sys.argv[2], sys.argv[3]
mode = sys.argv[4] if len(sys.argv) > 4 else ""
if mode == "zip64":  # every entry with zip64 extras, and a zip64 end record
    zipfile.ZIP64_LIMIT = 0
header_method = zipfile.ZIP_BZIP2 if mode == "bzip2" else zipfile.ZIP_STORED
with zipfile.ZipFile(out, "w") as z:
    for folder, dirs, files in sorted(os.walk(os.path.join(tree, top))):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, tree)
            info = zipfile.ZipInfo(rel, (2024, 4, 1, 0, 0, 0))
            info.create_system = 3
            if os.path.islink(path):
                info.external_attr = 0o120777 << 16
                z.writestr(info, os.readlink(path))
                continue
            info.external_attr = (os.stat(path).st_mode & 0o777 | 0o100000) << 16
            info.compress_type = header_method if f.endswith(".h") else zipfile.ZIP_DEFLATED
            with open(path, "rb") as fh:
                z.writestr(info, fh.read())
PY
}
make_zip "$SCRATCH/zips/$name.zip"
mkdir -p "$SCRATCH/z64"
make_zip "$SCRATCH/z64/$name.zip" zip64
check "the zip64 one has a zip64 end record" \
  python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(b"PK\x06\x06" not in d[-200:])' \
  "$SCRATCH/z64/$name.zip"
files=$(cd "$SCRATCH/tree/$name" && find . -type f | wc -l)
# what every install must hold: each file's hash and each link's target, from the tree
want=$(cd "$SCRATCH/tree/$name" && find . -type f -exec sha256sum {} + | sort; find . -type l -printf '%p -> %l\n' | sort)
installed() {
  (cd "$CDM_ROOT/9.1.0.70-cuda12" && find . -type f -exec sha256sum {} + | sort; find . -type l -printf '%p -> %l\n' | sort)
}

isal=no
python3 -c 'import ctypes; ctypes.CDLL("libisal.so.2")' 2>/dev/null && isal=yes
# install_as ENGINE ZIP WHAT: install with that inflater, then check the files and remove
install_as() {
  local engine=$1 zip=$2 what=$3 expect
  if [ "$engine" = zlib ]; then
    export CDM_TEST_INFLATE=zlib
  else
    unset CDM_TEST_INFLATE
  fi
  run_cdm install --verbose "$zip"
  expect_rc 0 "$what installs ($engine)"
  expect=$engine
  [ "$engine" = isal ] && expect=ISA-L
  expect_err "unpacked: zip, [0-9]+ threads, all $files files inflated by $expect" \
    "every file inflated by cdm's workers with $expect"
  check "$what: the same files and links, byte for byte ($engine)" test "$(installed)" = "$want"
  run_cdm verify 9.1
  expect_rc 0 "$what verifies ($engine)"
  run_cdm remove 9.1
  unset CDM_TEST_INFLATE
}
engines=zlib
if [ "$isal" = yes ]; then
  engines="isal zlib"
else
  skip_tool "zips inflated by ISA-L" "libisal.so.2 cannot be loaded (apt-get install libisal2)"
fi
for engine in $engines; do
  install_as "$engine" "$SCRATCH/zips/$name.zip" "a zip of deflated and stored entries"
  install_as "$engine" "$SCRATCH/z64/$name.zip" "a zip64 zip"
done
if command -v zip >/dev/null; then
  mkdir -p "$SCRATCH/infozip"
  (cd "$SCRATCH/tree" && zip -q -r -y "$SCRATCH/infozip/$name.zip" "$name")
  install_as "${engines%% *}" "$SCRATCH/infozip/$name.zip" "a zip of Info-ZIP's"
else
  skip_tool "a zip of Info-ZIP's" "zip is not installed"
fi

# [install] threads = 1: one worker, which inflates every file itself
printf '[install]\nthreads = 1\n' >"$CDM_CONFIG"
run_cdm install --verbose "$SCRATCH/zips/$name.zip"
expect_err "unpacked: zip, 1 thread, all $files files inflated by" "threads = 1: one worker"
check "with the same files" test "$(installed)" = "$want"
run_cdm remove 9.1
: >"$CDM_CONFIG"

# headers compressed with bzip2: cdm's workers inflate the rest, libarchive reads those
mkdir -p "$SCRATCH/bzip2"
make_zip "$SCRATCH/bzip2/$name.zip" bzip2
headers=$(cd "$SCRATCH/tree/$name" && find . -type f -name '*.h' | wc -l)
run_cdm install --verbose "$SCRATCH/bzip2/$name.zip"
expect_rc 0 "a zip with bzip2 entries installs"
expect_err "unpacked: zip, [0-9]+ threads, $((files - headers)) of $files files inflated by [^,]*, $headers by libarchive" \
  "its bzip2 entries through libarchive, the others by cdm's workers"
check "with the same files" test "$(installed)" = "$want"
run_cdm remove 9.1

# offset_of ZIP ENTRY: where the entry's compressed bytes start
offset_of() {
  python3 - "$1" "$2" <<'PY'
import struct, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
i = z.getinfo(sys.argv[2])
with open(sys.argv[1], "rb") as f:
    f.seek(i.header_offset)
    h = f.read(30)
n, e = struct.unpack("<HH", h[26:30])
print(i.header_offset + 30 + n + e, i.compress_size)
PY
}
big=$name/lib/libcudnn_big.so.9.1.0
read -r at length < <(offset_of "$SCRATCH/zips/$name.zip" "$big")
# patch_entry ZIP ENTRY crc|shorter: a wrong CRC-32 in the entry's directory record, or its
# size 1000 bytes short there and in its local header
patch_entry() {
  python3 - "$@" <<'PY'
import struct, sys, zipfile
path, entry, what = sys.argv[1:4]
data = bytearray(open(path, "rb").read())
z = zipfile.ZipFile(path)
info = z.getinfo(entry)
at = z.start_dir
for i in z.infolist():  # walk the directory to the entry's record
    n, e, c = (int.from_bytes(data[at + k:at + k + 2], "little") for k in (28, 30, 32))
    if i.filename == entry:
        break
    at += 46 + n + e + c
if what == "crc":
    data[at + 16] ^= 0xff
else:
    struct.pack_into("<I", data, at + 24, info.file_size - 1000)
    struct.pack_into("<I", data, info.header_offset + 22, info.file_size - 1000)
open(path, "wb").write(data)
PY
}
nothing_installed() { test -z "$(ls "$CDM_ROOT" | grep -v '^\.\|cdm.db\|downloads')"; }
mkdir -p "$SCRATCH/bad"
bad=$SCRATCH/bad/$name.zip
for engine in $engines; do
  [ "$engine" = zlib ] && export CDM_TEST_INFLATE=zlib
  cp "$SCRATCH/zips/$name.zip" "$bad"
  printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$bad" bs=1 seek=$((at + length / 2)) conv=notrunc 2>/dev/null
  run_cdm install "$bad"
  expect_rc 1 "damaged deflate data is refused ($engine)"
  expect_err "cannot read archive '$bad' at entry '$big': it is damaged or incomplete; download it again \((its data is not a valid deflate stream|its CRC-32 does not match|it holds (more|fewer) bytes than the zip's directory says)\)" \
    "naming the entry, in plain words ($engine)"
  check "nothing was installed ($engine)" nothing_installed
  # a wrong CRC-32 in the directory (the data intact)
  cp "$SCRATCH/zips/$name.zip" "$bad"
  patch_entry "$bad" "$big" crc
  run_cdm install "$bad"
  expect_rc 1 "a wrong CRC-32 is refused ($engine)"
  expect_err "'$big'.*damaged or incomplete" "naming the entry ($engine)"
  check "nothing was installed ($engine)" nothing_installed
  # a directory (and local header) that say the entry is 1000 bytes shorter than its data
  cp "$SCRATCH/zips/$name.zip" "$bad"
  patch_entry "$bad" "$big" shorter
  run_cdm install "$bad"
  expect_rc 1 "an entry longer than the directory says is refused ($engine)"
  expect_err "'$big': it is damaged or incomplete; download it again \\(it holds more bytes than the zip's directory says\\)" \
    "saying so ($engine)"
  check "nothing was installed ($engine)" nothing_installed
  unset CDM_TEST_INFLATE
done
# One zip, two readings: the entry checks (libarchive) and cdm's workers must read the same
# archive out of the file. A local header that disagrees with the directory in name, method
# or CRC-32 (the directory left as it was) is refused as damaged, for either inflater.
# patch_local ZIP ENTRY name|method|crc: change that field of the entry's local header only
patch_local() {
  python3 - "$@" <<'PY'
import sys, zipfile
path, entry, what = sys.argv[1:4]
data = bytearray(open(path, "rb").read())
at = zipfile.ZipFile(path).getinfo(entry).header_offset
if what == "name":      # the same length, its last letter changed
    n = int.from_bytes(data[at + 26:at + 28], "little")
    data[at + 30 + n - 1] ^= 0x01
elif what == "method":  # deflated in the directory, stored in the local header
    data[at + 8:at + 10] = (0).to_bytes(2, "little")
else:
    data[at + 14] ^= 0xff
open(path, "wb").write(data)
PY
}
for what in name method crc; do
  cp "$SCRATCH/zips/$name.zip" "$bad"
  patch_local "$bad" "$big" "$what"
  run_cdm install "$bad"
  expect_rc 1 "a local header with another $what than the directory is refused"
  expect_err "'$big'.*damaged or incomplete" "naming the entry ($what)"
  check "nothing was installed ($what)" nothing_installed
done
# An end record inside the zip's comment, after the real one: the last end record does not
# end the file, so cdm's reader steps aside and libarchive alone reads the zip.
python3 - "$SCRATCH/zips/$name.zip" "$bad" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
end = data.rindex(b"PK\x05\x06")
fake = b"PK\x05\x06" + bytes(18)  # an empty directory at offset 0
comment = b"x" + fake + b"y"
out = data[:end + 20] + len(comment).to_bytes(2, "little") + comment
open(sys.argv[2], "wb").write(out)
PY
run_cdm install --verbose "$bad"
# libarchive takes the last end record (bsdtar lists nothing): an empty zip, refused
expect_rc 1 "an end record in the comment: libarchive's reading stands"
expect_err "the archive is empty" "the empty archive it reads is refused"
check "nothing was installed" nothing_installed

# cut inside the large entry: the directory is gone, libarchive refuses it
head -c $((at + length / 2)) "$SCRATCH/zips/$name.zip" >"$bad"
run_cdm install "$bad"
expect_rc 1 "a cut-short zip is refused"
expect_err "damaged or incomplete" "saying so"
check "nothing was installed" nothing_installed

done_testing
