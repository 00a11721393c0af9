# Identical files across installs stored once: the cuda12 and cuda13 builds of one version
# (whose stand-in libraries are the same bytes, padded past the 4 KiB below which files
# stay each install's own) share them as hard links; `du`
# shows the saving, both verify, a removal of either leaves the other whole; a file changed
# by hand in one install is never shared with the next; a kill after the links were made
# leaves the first install as it was; gc --unused reports as freed only the bytes no kept
# install shares.
. "$TESTS_DIR/cli/lib.sh" || exit 1

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz --pad 8192)
b=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda13-archive.tar.xz --pad 8192)
A=$CDM_ROOT/9.1.0.70-cuda12
B=$CDM_ROOT/9.1.0.70-cuda13
on_disk() { du -s --block-size=1 "$@" | awk '{ print $1 }' | tail -1; }

run_cdm install "$a"
expect_rc 0 "the cuda12 build installed"
alone=$(on_disk "$CDM_ROOT")
run_cdm install "$b" --json
expect_rc 0 "the cuda13 build installed"
shared=$(json 'd["shared_files"]')
shared_bytes=$(json 'd["shared_bytes"]')
check "its files identical to the cuda12 build's are counted as shared ($shared)" test "$shared" -gt 0
same=0 same_bytes=0
while read -r f; do
  if cmp -s "$A/$f" "$B/$f" && [ "$(stat -c %s "$B/$f")" -ge 4096 ]; then
    same=$((same + 1)) same_bytes=$((same_bytes + $(stat -c %s "$B/$f")))
  fi
done < <(cd "$B" && find . -type f | sed 's|^\./||')
check "every identical file is shared, and only those ($shared of $same, $shared_bytes of $same_bytes bytes)" \
  test "$shared" = "$same" -a "$shared_bytes" = "$same_bytes"
check "each is one file with two names" \
  sh -c 'cd "$1" && find . -type f -size +4095c | while read -r f; do if cmp -s "$f" "$2/$f"; then [ "$f" -ef "$2/$f" ] || exit 1; fi; done' _ "$B" "$A"
check "the small ones (under 4 KiB) stay each install's own" \
  sh -c 'cd "$1" && test -z "$(find . -type f -size -4096c -links +1)"' _ "$B"
grew=$(($(on_disk "$CDM_ROOT") - alone)) own=$(on_disk "$B")
check "du counts them once: the store grew by $grew bytes, less than the new install's $own" \
  test "$grew" -lt "$own"
check "du of both counts less than du counting each name (-l)" \
  test "$(du -s --block-size=1 "$A" "$B" | awk '{ s += $1 } END { print s }')" -lt \
  "$(du -s -l --block-size=1 "$A" "$B" | awk '{ s += $1 } END { print s }')"
check "the shared files have no write bits" \
  test -z "$(find "$B" -type f -perm /222)"
run_cdm verify
expect_rc 0 "verify of both passes"
run_cdm install "$b" --json
check "installing the same archive again shares nothing new (nothing to do)" test "$(json 'd["changed"]')" = False

run_cdm remove 9.1.0.70-cuda12
expect_rc 0 "the cuda12 build removed"
check "the cuda13 build's files are whole, with one name each" \
  sh -c 'test -z "$(find "$1" -type f -links +1)"' _ "$B"
run_cdm verify 9.1.0.70-cuda13
expect_rc 0 "and verify"

# a file changed by hand (write bits given back, then taken again) is not shared
h=lib/libcudnn_ops.so.9.1.0
cp "$B/$h" "$SCRATCH/orig.so"
by_hand "$B" sh -c 'printf "changed" >>"$1"' _ "$B/$h"
run_cdm install "$a" --json
expect_rc 0 "the cuda12 build again, beside a changed cuda13 one"
check "its library is a copy of its own, not the changed one" \
  sh -c '! [ "$1" -ef "$2" ] && cmp -s "$1" "$3"' _ "$A/$h" "$B/$h" "$SCRATCH/orig.so"
run_cdm verify 9.1.0.70-cuda12
expect_rc 0 "it verifies"
run_cdm verify 9.1.0.70-cuda13
expect_rc 1 "the changed one is still reported"

# a kill after the links are made, before the commit: the other install is untouched
run_cdm remove 9.1.0.70-cuda12
by_hand "$B" sh -c 'cp "$2" "$1.x" && mv "$1.x" "$1" && chmod a-w "$1"' _ "$B/$h" "$SCRATCH/orig.so"
run_cdm verify 9.1.0.70-cuda13
expect_rc 0 "(the cuda13 build put back as installed)"
before=$(tree_digest "$B")
CDM_CRASH_AT=extracted "$CDM" install "$a" >/dev/null 2>&1
check "a kill at 'extracted' ends the install (status 137)" test $? -eq 137
run_cdm gc
check "after gc the cuda13 build is as it was" test "$before" = "$(tree_digest "$B")"
check "with one name a file again" sh -c 'test -z "$(find "$1" -type f -links +1)"' _ "$B"
run_cdm verify
expect_rc 0 "and verifies"
check "no install of the killed one is recorded" sh -c '! "$1" list | grep -q 9.1.0.70-cuda12' _ "$CDM"

# gc --unused counts the bytes a removal frees: not the files the kept install shares
run_cdm install "$a"
mkdir -p "$SCRATCH/proj"
run_cdm link "$SCRATCH/proj" 9.1.0.70-cuda13
own_bytes=$(find "$A" -type f -links 1 -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
all_bytes=$(find "$A" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
run_cdm gc --unused --dry-run --json
check "gc --unused --dry-run reports the bytes only the cuda12 build holds ($own_bytes of $all_bytes)" \
  test "$(json '[(i["id"], i["size"]) for i in d["installs"] if i["removed"]]')" = "[('9.1.0.70-cuda12', $own_bytes)]"
run_cdm gc --unused --json
check "and the same when it removes it" \
  test "$(json '[i["size"] for i in d["installs"] if i["removed"]]')" = "[$own_bytes]"
run_cdm verify
expect_rc 0 "the kept install verifies"

done_testing
