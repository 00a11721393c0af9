# cdm bundle and cdm install --from-bundle: a project locked for Linux and Windows is
# bundled from the loopback mirror into one tar (the lock and pin, both archives held to
# the lock, cdm for both platforms, a SHA256SUMS that sha256sum -c accepts); a fresh store
# with downloads off installs this machine's archive from it and verifies; a bundle whose
# archive was changed, or that lacks this machine's, installs nothing.
. "$TESTS_DIR/cli/lib.sh" || exit 1
. "$TESTS_DIR/cli/lib_mirror.sh" || exit 1
mirror_up
export CDM_FETCH_BASE
CDM_FETCH_BASE=$(base ok)

run_cdm install 9.27 --cuda 13
mkdir -p "$SCRATCH/proj"
run_cdm link "$SCRATCH/proj" 9.27 --cuda 13
run_cdm lock "$SCRATCH/proj" --platform windows-x86_64
expect_rc 0 "the project locked for linux-x86_64 and windows-x86_64"
B=$SCRATCH/proj.cdm-bundle.tar

run_cdm bundle "$SCRATCH/proj" -o "$B" --platform windows-x86_64
expect_rc 2 "a Windows platform without cdm.exe for it is a usage error"
expect_err "needs cdm for windows-x86_64: give --cdm windows-x86_64=PATH" "saying what to give"
check "and writes nothing" test ! -e "$B" -a ! -e "$B.cdm-parts"
printf 'not a program\n' >"$SCRATCH/notexe"
run_cdm bundle "$SCRATCH/proj" -o "$B" --platform windows-x86_64 --cdm "windows-x86_64=$SCRATCH/notexe"
expect_rc 2 "a file that is no Windows program is refused as cdm.exe"
expect_err "is not a Windows program" "naming what it is not"
# a stand-in for cdm.exe: what cdm checks of it is that it is a PE file ("MZ")
printf 'MZ stand-in for cdm.exe\n' >"$SCRATCH/cdm.exe"
run_cdm bundle "$SCRATCH/proj" -o "$B" --platform windows-x86_64 --cdm "windows-x86_64=$SCRATCH/cdm.exe" --json
expect_rc 0 "cdm bundle --platform windows-x86_64 --cdm windows-x86_64=cdm.exe"
check "--json: the install and two platforms" test "$(json 'd["install"], d["platforms"]')" = "('9.27.0.48-cuda13', 2)"
check "no parts folder is left beside it" test ! -e "$B.cdm-parts"

mkdir -p "$SCRATCH/open"
check "bsdtar reads the bundle" bsdtar -xf "$B" -C "$SCRATCH/open"
check "it holds the lock, the pin, both archives, cdm for both platforms and SHA256SUMS" \
  test "$(cd "$SCRATCH/open" && find . -type f | sort | tr '\n' ' ')" = \
  "./.cudnn-version ./SHA256SUMS ./archives/$A927_13 ./archives/$A927_WIN ./bin/linux-x86_64/cdm ./bin/windows-x86_64/cdm.exe ./cudnn.lock "
check "sha256sum -c accepts its SHA256SUMS" sh -c 'cd "$1" && sha256sum --quiet -c SHA256SUMS' _ "$SCRATCH/open"
check "the archives are the mirror's bytes" \
  sh -c 'cmp -s "$1/archives/$3" "$(find "$2" -name "$3" | head -1)" && cmp -s "$1/archives/$4" "$(find "$2" -name "$4" | head -1)"' \
  _ "$SCRATCH/open" "$MIRROR" "$A927_13" "$A927_WIN"
check "cdm for this machine is the running one, and runs" \
  sh -c 'cmp -s "$1/bin/linux-x86_64/cdm" "$2" && "$1/bin/linux-x86_64/cdm" --version' _ "$SCRATCH/open" "$CDM"
check "the lock is the project's" cmp -s "$SCRATCH/open/cudnn.lock" "$SCRATCH/proj/cudnn.lock"

# the other machine: a fresh store, no network
export CDM_ROOT=$SCRATCH/offline CDM_FETCH_BASE=off
OFF=$(wc -l <"$SERVER_LOG")
run_cdm install --from-bundle "$B" --json
expect_rc 0 "cdm install --from-bundle, offline"
check "installs the locked version" test "$(json 'd["id"], d["sha256"]')" = "('9.27.0.48-cuda13', '$(sha256sum <"$SCRATCH/open/archives/$A927_13" | cut -d' ' -f1)')"
check "without one request to the mirror" test "$(wc -l <"$SERVER_LOG")" = "$OFF"
run_cdm verify
expect_rc 0 "and verifies"
check "nothing is left in .staging" test -z "$(ls -A "$CDM_ROOT/.staging")"
run_cdm install --from-bundle "$B"
expect_rc 0 "a second time"
expect_err "already installed" "says it is there"

# a bundle changed on the way: its archive's bytes, then no archive for this machine
export CDM_ROOT=$SCRATCH/offline2
mkdir -p "$SCRATCH/bad"
cp -r "$SCRATCH/open/." "$SCRATCH/bad/"
chmod -R u+w "$SCRATCH/bad"
printf 'x' | dd of="$SCRATCH/bad/archives/$A927_13" bs=1 seek=1000 conv=notrunc 2>/dev/null
(cd "$SCRATCH/bad" && bsdtar --format ustar -cf "$SCRATCH/bad.tar" cudnn.lock SHA256SUMS archives)
run_cdm install --from-bundle "$SCRATCH/bad.tar"
expect_rc 1 "an archive changed inside the bundle is refused"
expect_err "SHA256SUMS and its cudnn.lock name other bytes|has SHA-256 .* its lock names" "naming the mismatch"
check "nothing installed, nothing left" sh -c '! ls "$1" | grep -q cuda && test -z "$(ls -A "$1/.staging" 2>/dev/null)"' _ "$CDM_ROOT"
(cd "$SCRATCH/open" && bsdtar --format ustar -cf "$SCRATCH/nolinux.tar" cudnn.lock SHA256SUMS "archives/$A927_WIN")
run_cdm install --from-bundle "$SCRATCH/nolinux.tar"
expect_rc 1 "a bundle without this machine's archive installs nothing"
expect_err "holds no 'archives/$A927_13'" "naming the member"
printf 'no tar\n' >"$SCRATCH/junk.tar"
run_cdm install --from-bundle "$SCRATCH/junk.tar"
expect_rc 1 "a file that is no bundle is refused"
run_cdm install --from-bundle "$B" 9.27
expect_rc 2 "--from-bundle takes no VERSION"

done_testing
