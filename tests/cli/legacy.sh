# Archives from before NVIDIA's manifests (cuDNN 8.2 and older): `cdm install 8.1` finds them
# in cdm's table (official.c: NVIDIA's hashes, from Spack's package and NVIDIA's) and
# downloads them from the old folders (v8.1.1/NAME below a mirror's base), checked against
# the table; a site's own hashes ([fetch] legacy_sums) add archives NVIDIA published no hash
# for. The archives here are stand-ins of the real layout, so NVIDIA's hashes refuse them:
# which is what proves that the table is what they are checked against.
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_mirror.sh"

if ! command -v python3 >/dev/null; then
  skip_tool "downloads from a test mirror" "python3 is not installed (the mirror's server is Python)"
  done_testing
  exit 0
fi
L811=cudnn-11.2-linux-x64-v8.1.1.33.tgz
W811=cudnn-11.2-windows-x64-v8.1.1.33.zip
W810=cudnn-11.2-windows-x64-v8.1.0.77.zip
W824=cudnn-11.4-windows-x64-v8.2.4.15.zip
mkdir -p "$MIRROR/v8.1.1" "$MIRROR/v8.1.0" "$MIRROR/v8.2.4"
for a in "v8.1.1/$L811" "v8.1.1/$W811" "v8.1.0/$W810" "v8.2.4/$W824"; do
  "$MAKE_FIXTURE" "$MIRROR/$a" --pad 200000 || not_ok "fixture $a"
done
start_server || { not_ok "the mirror server starts"; done_testing; exit 1; }
CDM_FETCH_BASE=$(base ok)
export CDM_FETCH_BASE
sha() { sha256sum "$MIRROR/$1" | cut -d' ' -f1; }

run_cdm install 8.1.1
expect_rc 1 "8.1.1 is published for two CUDA majors on Linux"
expect_err "cuDNN 8.1.1.33 for linux-x86_64 is published for cuda10 and cuda11 \('cdm's table of NVIDIA's archives from before its manifests'\); choose one with --cuda N" \
  "and the table says which"
run_cdm install 8.1 --cuda 11
expect_rc 1 "a Linux archive that is not NVIDIA's bytes is refused"
expect_err "v8.1.1/$L811' does not match cdm's table of NVIDIA's archives \(or \[fetch\] legacy_sums\): sha256 98a8784e92862f20018d20c281b30d4a0cd951f93694f6433ccf4ae9c502ba6a expected, $(sha "v8.1.1/$L811") received.*nothing was installed" \
  "against NVIDIA's hash of $L811 (8.1 is its newest 8.1)"
check "it was downloaded from the old folder, as NVIDIA kept it" \
  test "$(requests "e['path'] == 'v8.1.1/$L811' and e['status'] == 200")" -ge 1
check "nothing installed, no partial left" \
  test -z "$(ls "$CDM_ROOT" | grep -v '^downloads$' | grep 8.1)" -a -z "$(ls "$CDM_ROOT/downloads" 2>/dev/null | grep partial)"

run_cdm install 8.1.0 --platform windows-x86_64
expect_rc 1 "the same for a Windows zip of the table"
expect_err "sha256 f5a23402ebed5b2add2ae0dc79df42f055f5851bbb3b1d0f6aa9dcdeeb9346ce expected" "with NVIDIA's hash of $W810"

run_cdm install 8.1.1 --platform windows-x86_64
expect_rc 1 "an archive whose hash NVIDIA never published is not downloaded"
expect_err "NVIDIA publishes no cuDNN 8.1.1 for windows-x86_64 \(cdm's table of NVIDIA's archives from before its manifests\).*give its hash in \[fetch\] legacy_sums" \
  "saying how a site can add it"
check "nothing was asked of the mirror for it" test "$(requests "e['path'] == 'v8.1.1/$W811'")" = 0

# A site that checked its copies lists them.
SUMS=$SCRATCH/legacy.sha256
(cd "$MIRROR/v8.1.1" && sha256sum "$W811") >"$SUMS"
printf '# checked against the site copy, 2021-03\n\n%s *%s\n' "$(sha "v8.2.4/$W824")" "$W824" >>"$SUMS"
# (ca_file after it, empty: the two keys are kept apart)
printf '[fetch]\nlegacy_sums = %s\nretries = 0\nca_file =\n' "$SUMS" >"$CDM_CONFIG"
run_cdm install 8.1.1 --platform windows-x86_64 --json
expect_rc 0 "with [fetch] legacy_sums, 8.1.1 for Windows installs from the mirror"
check "the install is that archive" test "$(json 'd["id"], d["sha256"], d["official"]')" = \
  "('8.1.1.33-cuda11', '$(sha "v8.1.1/$W811")', False)"
run_cdm verify 8.1.1.33-cuda11
expect_rc 0 "and verifies"

# A download of unknown size that is cut: nothing to resume from, the next run starts over.
CDM_FETCH_BASE=$(base cut) run_cdm install 8.2 --platform windows-x86_64
expect_rc 1 "a cut download of an archive of unknown size fails"
CDM_FETCH_BASE=$(base ok) run_cdm install 8.2 --platform windows-x86_64 --json
expect_rc 0 "the next run gets it whole"
check "asking from the start (no range: the kept bytes cannot be told whole)" \
  test "$(requests "e['path'] == 'v8.2.4/$W824' and e['mode'] == 'ok' and not e['range']")" = 1
check "and installs those bytes" test "$(json 'd["sha256"]')" = "$(sha "v8.2.4/$W824")"
"$CDM" remove -q 8.2.4.15-cuda11
CDM_FETCH_BASE=$(base wrong) run_cdm install 8.2 --platform windows-x86_64
expect_rc 1 "a mirror's changed byte is refused against the site's hash"
check "and nothing is installed" test ! -e "$CDM_ROOT/8.2.4.15-cuda11"

# cdm fetch --into keeps it for an offline machine; that folder as the base installs it.
run_cdm fetch 8.1.1 --platform windows-x86_64 --into "$SCRATCH/offline"
expect_rc 0 "cdm fetch --into"
check "the archive and its SHA256SUMS line, no manifest" \
  test -f "$SCRATCH/offline/$W811" -a -z "$(ls "$SCRATCH/offline" | grep json)" -a \
  "$(cat "$SCRATCH/offline/SHA256SUMS")" = "$(sha "v8.1.1/$W811")  $W811"
"$CDM" remove -q 8.1.1.33-cuda11
CDM_FETCH_BASE=$SCRATCH/offline run_cdm install 8.1.1 --platform windows-x86_64
expect_rc 0 "installed offline from that folder"

# The site's file is checked.
printf '%s  %s\n' "$(sha "v8.1.1/$L811")" "$L811" >"$SUMS"
run_cdm install 8.1.1 --cuda 11
expect_rc 1 "a site hash for an archive NVIDIA published another hash of is refused"
expect_err "legacy_sums '$SUMS' line 1 gives '$L811' the hash $(sha "v8.1.1/$L811"), but NVIDIA's is 98a8784e" \
  "naming the file, the line and both hashes"
printf 'not-a-hash  %s\n' "$W811" >"$SUMS"
run_cdm install 8.1.1 --platform windows-x86_64 --force
expect_rc 1 "a malformed line is refused"
expect_err "legacy_sums '$SUMS' line 1: give a lowercase SHA-256" "naming the file and the line"
done_testing
