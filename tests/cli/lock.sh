# cdm lock against the loopback mirror: cudnn.lock names the archive of the project's cuDNN
# for this platform (from the install) and another (from the manifest); a fresh clone's
# `cdm link` installs exactly the locked bytes into an empty store; a mirror serving other
# bytes and a tampered lock are refused with nothing installed; --check tells a project
# that moved away from its lock.
. "$TESTS_DIR/cli/lib.sh" || exit 1
. "$TESTS_DIR/cli/lib_mirror.sh" || exit 1
mirror_up
export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base ok)
sha_of() { find "$MIRROR" -name "$1" -exec sha256sum {} + | cut -d' ' -f1 | head -1; }

run_cdm install 9.27 --cuda 13
expect_rc 0 "9.27 (CUDA 13) installed from the mirror"
mkdir -p "$SCRATCH/proj"
run_cdm link "$SCRATCH/proj" 9.27 --cuda 13
P=$(cd "$SCRATCH/proj" && pwd -P)
run_cdm lock "$P" --platform windows-x86_64
expect_rc 0 "cdm lock --platform windows-x86_64"
L=$P/cudnn.lock
check "the lock names the version and CUDA major" \
  sh -c 'grep -qx "version = 9.27.0.48" "$1" && grep -qx "cuda = 13" "$1"' _ "$L"
check "this platform's archive with its SHA-256" \
  sh -c 'grep -A3 "^\[linux-x86_64\]" "$1" | grep -qx "sha256 = $2" && grep -A3 "^\[linux-x86_64\]" "$1" | grep -qx "archive = $3"' _ "$L" "$(sha_of "$A927_13")" "$A927_13"
check "the other platform's from the manifest" \
  sh -c 'grep -A3 "^\[windows-x86_64\]" "$1" | grep -qx "sha256 = $2"' _ "$L" "$(sha_of "$A927_WIN")"
run_cdm lock "$P" --check
expect_rc 0 "--check: the project uses what the lock names"

# a fresh clone: the pin and the lock, an empty store
clone() {
  rm -rf "$SCRATCH/${1:?}" && mkdir -p "$SCRATCH/$1"
  cp "$P/.cudnn-version" "$P/cudnn.lock" "$SCRATCH/$1/"
}
export CDM_ROOT=$SCRATCH/store2 HOME=$SCRATCH/home2
mkdir -p "$HOME"
clone fresh
run_cdm link "$SCRATCH/fresh"
expect_rc 0 "cdm link in a fresh clone with a lock"
expect_err "installed 9.27.0.48-cuda13, the archive '.*cudnn.lock' names" "says it installed the locked archive"
check "the link leads to the locked install" test "$(readlink "$SCRATCH/fresh/cuda_link")" = "$CDM_ROOT/9.27.0.48-cuda13"
check "its record has the locked SHA-256" \
  test "$("$CDM" list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["sha256"])')" = "$(sha_of "$A927_13")"

export CDM_ROOT=$SCRATCH/store3
clone wrongbytes
CDM_FETCH_BASE=$(base wrong) run_cdm link "$SCRATCH/wrongbytes"
expect_rc 1 "a mirror serving other bytes under the locked name is refused"
expect_err "cannot install what .*cudnn.lock' names .*" "naming the lock"
check "nothing was installed" test -z "$(ls "$CDM_ROOT" 2>/dev/null | grep -v '^\.\|cdm.db\|downloads')"
clone tampered
sed -i 's/^sha256 = \(.\)/sha256 = 0/' "$SCRATCH/tampered/cudnn.lock"
sed -i '0,/^sha256 = 0/s//sha256 = 1/' "$SCRATCH/tampered/cudnn.lock"
run_cdm link "$SCRATCH/tampered"
expect_rc 1 "a lock whose SHA-256 is not the archive's is refused"
expect_err "cannot install what .*cudnn.lock' names" "naming the lock"
check "nothing was installed" test -z "$(ls "$CDM_ROOT" 2>/dev/null | grep -v '^\.\|cdm.db\|downloads')"
# a value longer than the lock's field is refused, not cut short into another name
clone longname
sed -i "0,/^archive = .*/s//archive = $(printf 'x%.0s' $(seq 300)).zip/" "$SCRATCH/longname/cudnn.lock"
run_cdm link "$SCRATCH/longname"
expect_rc 1 "a lock with an archive name longer than any is refused"
expect_err "cannot read '.*longname/cudnn.lock': the value on line [0-9]+ is longer" "naming the file and the line"

# the project moves away from its lock
export CDM_ROOT=$SCRATCH/store HOME=$SCRATCH/home
run_cdm install 9.27 --cuda 12
run_cdm link "$P" 9.27 --cuda 12
run_cdm lock "$P" --check
expect_rc 1 "--check after a link to another build: exit 1"
expect_err "names cuDNN 9.27.0.48 for CUDA 13 .*the project uses 9.27.0.48-cuda12" "saying what differs and what to run"
printf 'garbage\n' >"$SCRATCH/proj/cudnn.lock"
run_cdm lock "$P" --check
expect_rc 1 "a lock that is not INI is refused"
expect_err "cannot read '.*cudnn.lock'" "naming it"

# what a kill during cdm lock leaves: gc removes the temporary file once its writer is gone
sleep 0 & gone=$!
wait "$gone"
echo half >"$P/cudnn.lock.cdm-$gone.tmp"
echo live >"$P/cudnn.lock.cdm-$$.tmp"
echo mine >"$P/cudnn.lock.cdm-notes.tmp"
run_cdm gc --json
check "gc removes the temporary lock file of a writer that is gone" test ! -e "$P/cudnn.lock.cdm-$gone.tmp"
check "and keeps one whose writer runs, and one not of cdm's naming" \
  test -f "$P/cudnn.lock.cdm-$$.tmp" -a -f "$P/cudnn.lock.cdm-notes.tmp"
rm -f "$P"/cudnn.lock.cdm-*.tmp

# A lock that is a link (a repository's arrangement, or a trap) is cdm's file name but not
# cdm's file: refused, never written through, the link and what it leads to as they were.
printf 'kept\n' >"$SCRATCH/elsewhere"
mv "$L" "$SCRATCH/lock.saved"
ln -s "$SCRATCH/elsewhere" "$L"
run_cdm lock "$P"
expect_rc 1 "cdm lock over a cudnn.lock that is a link is refused"
expect_err "cannot write the lock '.*cudnn.lock': it is a link.*remove it" "saying what it is and what to do"
check "the link stays, and the file it leads to is untouched" \
  sh -c 'test -L "$1" && test "$(cat "$2")" = kept' _ "$L" "$SCRATCH/elsewhere"
rm "$L"
mv "$SCRATCH/lock.saved" "$L"

# an unlinked project keeps its pin and its lock: gc cleans its temporary files too
run_cdm unlink "$P"
expect_rc 0 "the project unlinked"
echo half >"$P/cudnn.lock.cdm-$gone.tmp"
run_cdm gc
check "gc removes a gone writer's temporary lock file in an unlinked project" \
  test ! -e "$P/cudnn.lock.cdm-$gone.tmp"

done_testing
