# cdm.exe under Wine: a Windows zip's bill of materials (SPDX and CycloneDX, hashes by
# BCrypt, SHA-1 among them, against sha256sum and sha1sum of the files on the disk), the
# licence on record, and identical files of two builds stored once (hard links made with
# CreateHardLinkW), each verifying, a removal of one leaving the other whole.
. "$TESTS_DIR/win/lib.sh"

a=$(fixture cudnn-windows-x86_64-9.18.0.20_cuda12-archive.zip --pad 8192)
b=$(fixture cudnn-windows-x86_64-9.18.0.20_cuda13-archive.zip --pad 8192)
A=$CDM_ROOT_POSIX/9.18.0.20-cuda12
B=$CDM_ROOT_POSIX/9.18.0.20-cuda13
run_cdm install "$(wpath "$a")" --accept-license
expect_rc 0 "the cuda12 zip installs, its licence accepted"
run_cdm sbom 9.18.0.20-cuda12
expect_rc 0 "cdm sbom (SPDX)"
spdx=$OUT
(cd "$A" && find . -type f | sed 's|^\./||' | sort | while read -r f; do
  printf '%s %s %s\n' "$f" "$(sha256sum <"$f" | cut -d' ' -f1)" "$(sha1sum <"$f" | cut -d' ' -f1)"
done) >"$SCRATCH/disk"
printf '%s' "$spdx" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in sorted(d["files"], key=lambda f: f["fileName"]):
    c = {x["algorithm"]: x["checksumValue"] for x in f["checksums"]}
    print(f["fileName"][2:], c["SHA256"], c["SHA1"])' >"$SCRATCH/bill"
check "every file of the install, with sha256sum's and sha1sum's hashes" diff "$SCRATCH/disk" "$SCRATCH/bill"
check "the package is the zip, with its SHA-256" \
  sh -c 'printf "%s" "$1" | grep -q "\"checksumValue\":[[:space:]]*\"$2\""' _ "$spdx" "$(sha256sum <"$a" | cut -d' ' -f1)"
run_cdm sbom 9.18.0.20-cuda12 --format cyclonedx
check "CycloneDX: the licence accepted on record by the option" \
  sh -c 'printf "%s" "$1" | grep -q "\"cdm:license-accepted\",[[:space:]]*\"value\":[[:space:]]*\"option\""' _ "$OUT"

run_cdm install "$(wpath "$b")" --json
expect_rc 0 "the cuda13 zip installs"
shared=$(json 'd["shared_files"]')
check "its DLLs identical to the cuda12 build's are stored once ($shared files)" test "$shared" -gt 0
check "as hard links" sh -c '[ "$1/bin/x64/cudnn64_9.dll" -ef "$2/bin/x64/cudnn64_9.dll" ]' _ "$A" "$B"
run_cdm verify
expect_rc 0 "both verify (read-only attribute and all)"
run_cdm remove 9.18.0.20-cuda12
expect_rc 0 "the cuda12 build removed"
run_cdm verify
expect_rc 0 "the cuda13 build verifies alone: its read-only attributes kept"
check "its DLL is whole" test -s "$B/bin/x64/cudnn64_9.dll"

done_testing
