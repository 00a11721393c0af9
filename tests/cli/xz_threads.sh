# A .tar.xz decoded on several threads (liblzma's multi-threaded decoder): an archive of
# many xz blocks (as `xz -T0` makes them) installs the same files as one of a single block,
# with the same records; a damaged block and a cut-short stream are refused with the plain
# words, nothing installed.
. "$TESTS_DIR/cli/lib.sh" || exit 1

if ! command -v xz >/dev/null; then
  skip_tool "multi-block .tar.xz" "xz (xz-utils) is not installed"
  done_testing
  exit
fi
one=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
name=$(basename "$one" .tar.xz)
# the same tar, as many blocks of 64 KiB
mkdir -p "$SCRATCH/many"
xz -dc "$one" >"$SCRATCH/$name.tar"
# a larger file too, so that there are many blocks to share out
tar -C "$SCRATCH" -xf "$SCRATCH/$name.tar"
head -c 3000000 /dev/urandom | base64 >"$SCRATCH/$name/lib/libcudnn_big.so.9.1.0"
tar -C "$SCRATCH" -cf "$SCRATCH/$name.tar" "$name"
xz -T2 --block-size=65536 -c "$SCRATCH/$name.tar" >"$SCRATCH/many/$name.tar.xz"
xz -T1 -c "$SCRATCH/$name.tar" >"$SCRATCH/$name.tar.xz"
check "the archive has many xz blocks" \
  test "$(xz --robot --list "$SCRATCH/many/$name.tar.xz" | awk '$1 == "totals" {print $3}')" -gt 10

run_cdm install --verbose "$SCRATCH/many/$name.tar.xz"
expect_rc 0 "the multi-block archive installs"
cores=$(nproc)
if [ "$cores" -gt 1 ]; then
  expect_err "unpacked: tar, its xz blocks decoded by liblzma on up to $cores threads \(within 224 MiB\)" \
    "on every core, within the default bound"
else
  skip "on every core" "this machine has one core"
fi
run_cdm verify 9.1
expect_rc 0 "and verifies"
many=$(cd "$CDM_ROOT/9.1.0.70-cuda12" && find . -type f -exec sha256sum {} + | sort)
run_cdm remove 9.1
run_cdm install "$SCRATCH/$name.tar.xz"
expect_rc 0 "the one-block archive of the same tar installs"
check "the same files, byte for byte" \
  test "$(cd "$CDM_ROOT/9.1.0.70-cuda12" && find . -type f -exec sha256sum {} + | sort)" = "$many"
run_cdm remove 9.1
# [install] threads and thread_memory
printf '[install]\nthreads = 3\nthread_memory = 64M\n' >"$CDM_CONFIG"
run_cdm install --verbose "$SCRATCH/many/$name.tar.xz"
expect_err "liblzma on up to 3 threads \(within 64 MiB\)" "[install] threads and thread_memory are taken"
check "the same files again" \
  test "$(cd "$CDM_ROOT/9.1.0.70-cuda12" && find . -type f -exec sha256sum {} + | sort)" = "$many"
run_cdm remove 9.1
printf '[install]\nthreads = 1\n' >"$CDM_CONFIG"
run_cdm install --verbose "$SCRATCH/many/$name.tar.xz"
expect_err "unpacked: tar, read by libarchive on one thread" "threads = 1: libarchive's one thread"
check "the same files again" \
  test "$(cd "$CDM_ROOT/9.1.0.70-cuda12" && find . -type f -exec sha256sum {} + | sort)" = "$many"
run_cdm verify 9.1
expect_rc 0 "and verify on one thread passes"
run_cdm remove 9.1
: >"$CDM_CONFIG"

mkdir -p "$SCRATCH/bad"
bad=$SCRATCH/bad/$name.tar.xz
cp "$SCRATCH/many/$name.tar.xz" "$bad"
size=$(stat -c %s "$bad")
printf '\x55\xaa\x55\xaa' | dd of="$bad" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
run_cdm install "$bad"
expect_rc 1 "a damaged block is refused"
expect_err "cannot read archive '$bad': it is damaged or incomplete \(the xz stream's data or its check is damaged\); download it again" \
  "in plain words, without libarchive's"
head -c $((size / 3)) "$SCRATCH/many/$name.tar.xz" >"$bad"
run_cdm install "$bad"
expect_rc 1 "a cut-short archive is refused"
expect_err "damaged or incomplete" "saying so"
check "nothing was installed" test -z "$(ls "$CDM_ROOT" | grep -v '^\.\|cdm.db\|downloads')"

done_testing
