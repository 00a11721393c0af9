# The read-only store: an install's files and folders carry no write bits, so that writing
# through a path into the store fails, for its owner too; install --force, remove, gc,
# verify and recovery work all the same. Run as an ordinary user (nobody, through setpriv),
# since root writes whatever the bits say; as root only the bits are checked.
. "$TESTS_DIR/cli/lib.sh" || exit 1

archive=$(fixture cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz --version 9.19.0.56)
as_user=()
if [ "$(id -u)" = 0 ]; then
  if ! command -v setpriv >/dev/null; then
    skip_tool "the read-only store as an ordinary user" "setpriv (util-linux) is not installed"
  else
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
fi
# Everything the user works on is theirs: a folder of the scratch folder, which others may
# enter, and the archive copied there.
chmod 755 "$SCRATCH"
U=$SCRATCH/user
mkdir -p "$U/home" "$U/proj"
cp "$archive" "$U/"
archive=$U/$(basename "$archive")
# and cdm itself, which the checkout's folder may not let others reach (a clone under /root)
cp "$CDM" "$U/cdm"
CDM=$U/cdm
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$U"
export CDM_ROOT=$U/store HOME=$U/home CDM_CONFIG=$U/config.ini
: >"$CDM_CONFIG"
[ "$(id -u)" = 0 ] && chown 65534:65534 "$CDM_CONFIG"
# shellcheck disable=SC2034 # OUT, RC and ERR are read by json, expect_rc and expect_err (lib.sh)
ucdm() {
  OUT=$("${as_user[@]}" "$CDM" "$@" 2>"$SCRATCH/stderr")
  RC=$?
  ERR=$(cat "$SCRATCH/stderr")
}
as() { "${as_user[@]}" "$@" 2>/dev/null; }

ucdm install "$archive"
expect_rc 0 "install as the store's owner"
I=$CDM_ROOT/9.19.0.56-cuda13
check "no file of the install has a write bit" test -z "$(find "$I" -type f -perm /222)"
check "nor any folder, the install's own included" test -z "$(find "$I" -type d -perm /222)"
check "libraries keep their executable bit (0555), others 0444" \
  test "$(stat -c %a "$I/lib/libcudnn.so.9.19.0" "$I/include/cudnn.h" | tr '\n' ' ')" = "555 444 "
if [ ${#as_user[@]} -gt 0 ] || [ "$(id -u)" != 0 ]; then
  lib=$I/lib/libcudnn.so.9.19.0
  before=$(sha256sum <"$lib")
  check "writing to an installed file as its owner fails" sh -c '! "$@"' _ "${as_user[@]}" sh -c 'echo x >>"$1"' _ "$lib"
  check "truncating one fails" sh -c '! "$@"' _ "${as_user[@]}" sh -c ': >"$1"' _ "$lib"
  check "adding a file to an install's folder fails" sh -c '! "$@"' _ "${as_user[@]}" touch "$I/lib/new.so"
  check "deleting one fails" sh -c '! "$@"' _ "${as_user[@]}" rm -f "$lib"
  check "renaming one fails" sh -c '! "$@"' _ "${as_user[@]}" mv "$lib" "$lib.moved"
  check "the file is as installed" test "$(sha256sum <"$lib")" = "$before"
  # What pip did through an attached whole-folder link: unlink, then write a new file.
  "${as_user[@]}" python3 -c '
import os, sys
p = sys.argv[1]
try:
    os.unlink(p)
except OSError:
    pass
try:
    open(p, "wb").write(b"not cuDNN")
except OSError:
    pass' "$lib"
  check "an installer writing through a path into the store changes nothing" test "$(sha256sum <"$lib")" = "$before"
fi
ucdm verify
expect_rc 0 "verify of the read-only install passes"

# install --force replaces it, remove takes it away, each as the owner
ucdm install "$archive" --force
expect_rc 0 "install --force over a read-only install"
check "the new one is read-only too" test -z "$(find "$I" -perm /222 ! -type l)"
check "nothing is left in .staging" test -z "$(ls -A "$CDM_ROOT/.staging")"
ucdm link "$U/proj" 9.19
ucdm unlink "$U/proj"
ucdm remove 9.19
expect_rc 0 "remove of a read-only install"
check "its folder is gone" test ! -e "$I"
check "nothing is left in .staging after remove" test -z "$(ls -A "$CDM_ROOT/.staging")"

# kill -9 while an install or a remove moves the read-only folder: the next command settles it
for point in recorded moved-aside renamed; do
  CDM_CRASH_AT=$point "${as_user[@]}" "$CDM" install "$archive" --force >/dev/null 2>&1
  ucdm gc
  expect_rc 0 "gc after an install killed at $point"
  ucdm verify
  expect_rc 0 "the install verifies after $point"
  check "and is read-only after $point" test -z "$(find "$I" -perm /222 ! -type l)"
done
for point in remove-moved remove-recorded; do
  CDM_CRASH_AT=$point "${as_user[@]}" "$CDM" remove 9.19 >/dev/null 2>&1
  ucdm gc
  expect_rc 0 "gc after a remove killed at $point"
  check "nothing is left in .staging after $point" test -z "$(ls -A "$CDM_ROOT/.staging")"
  if [ -d "$I" ]; then
    ucdm verify
    expect_rc 0 "the install is back and verifies after $point"
    check "read-only after $point" test -z "$(find "$I" -perm /222 ! -type l)"
  else
    ucdm list --json
    check "the remove finished after $point: no record left" test "$(json 'len(d)')" = 0
  fi
  ucdm install "$archive" >/dev/null 2>&1
done

done_testing
