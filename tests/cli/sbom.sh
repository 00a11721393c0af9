# cdm sbom and the licence on record: the bill of an archive's install and of a wheel's,
# as SPDX 2.3 and CycloneDX 1.5, validated against both JSON schemas (the files lib4sbom
# ships, from the package registry); every file of the install folder in it with the
# SHA-256 and SHA-1 that sha256sum and sha1sum give, the source archive's hash, the licence
# quoted; a tampered install refused; --accept-license and [install] accept_license on
# record; [install] require_license refusing an install with nothing installed.
. "$TESTS_DIR/cli/lib.sh" || exit 1

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
run_cdm install "$a"
expect_rc 0 "the archive installed"
ID=9.1.0.70-cuda12
D=$CDM_ROOT/$ID

run_cdm sbom "$ID"
expect_rc 0 "cdm sbom ID (SPDX by default)"
SPDX=$SCRATCH/bill.spdx.json
printf '%s' "$OUT" >"$SPDX"
run_cdm sbom "$ID" --format cyclonedx
expect_rc 0 "cdm sbom ID --format cyclonedx"
CDX=$SCRATCH/bill.cdx.json
printf '%s' "$OUT" >"$CDX"

# the schemas: lib4sbom's copies of SPDX's spdx-schema.json 2.3 and CycloneDX's bom-1.5
LIB4SBOM=lib4sbom==0.10.4
schemas=$(test_cache)/lib4sbom-0.10.4
if [ ! -f "$schemas/lib4sbom/schemas/spdx/2.3-schema.json" ] && registry_reachable >/dev/null &&
  python3 -m pip --version >/dev/null 2>&1; then
  rm -rf "$schemas.part" && mkdir -p "$schemas.part" &&
    timeout 120 python3 -m pip download --quiet --disable-pip-version-check --retries 1 --timeout 15 \
      --no-deps --only-binary=:all: -d "$schemas.part" "$LIB4SBOM" >/dev/null 2>&1 &&
    python3 -c 'import sys, zipfile, glob; zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0]).extractall(sys.argv[1])' "$schemas.part" &&
    rm -rf "$schemas" && mv "$schemas.part" "$schemas"
  rm -rf "$schemas.part"
fi
validate() { # validate SCHEMA DOC: the JSON document against the JSON schema (and its siblings)
  python3 - "$1" "$2" <<'PY'
import json, sys, pathlib, jsonschema
schema_path = pathlib.Path(sys.argv[1])
schema = json.loads(schema_path.read_text())
doc = json.loads(pathlib.Path(sys.argv[2]).read_text())
# CycloneDX's schema refers to spdx.schema.json and jsf-0.82.schema.json beside it
store = {}
for p in schema_path.parent.glob("*.json"):
    s = json.loads(p.read_text())
    store[p.name] = s
    if "$id" in s:
        store[s["$id"]] = s
resolver = jsonschema.RefResolver.from_schema(schema, store=store)
cls = jsonschema.validators.validator_for(schema)
errors = list(cls(schema, resolver=resolver).iter_errors(doc))
for e in errors[:5]:
    print(f"{list(e.absolute_path)}: {e.message[:300]}")
sys.exit(1 if errors else 0)
PY
}
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  skip_tool "the bills against the SPDX 2.3 and CycloneDX 1.5 schemas" "no jsonschema for python3 (python3-jsonschema)"
elif [ ! -d "$schemas/lib4sbom/schemas" ]; then
  skip_tool "the bills against the SPDX 2.3 and CycloneDX 1.5 schemas" "$LIB4SBOM (the schema files) could not be had from the package registry"
else
  check "the SPDX bill validates against the SPDX 2.3 JSON schema" \
    validate "$schemas/lib4sbom/schemas/spdx/2.3-schema.json" "$SPDX"
  check "the CycloneDX bill validates against the CycloneDX 1.5 JSON schema" \
    validate "$schemas/lib4sbom/schemas/cyclonedx/bom-1.5.schema.json" "$CDX"
  # the check itself: a bill with a file without checksums is refused by the schema
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["files"][0]["checksums"]; json.dump(d, open(sys.argv[2], "w"))' "$SPDX" "$SCRATCH/broken.json"
  check "(the schema check refuses a file without checksums)" \
    sh -c '! "$@" >/dev/null' _ validate "$schemas/lib4sbom/schemas/spdx/2.3-schema.json" "$SCRATCH/broken.json"
fi

# every file of the folder, with the hashes the coreutils give; links by what they lead to
hashes_of() { # the install folder as "path sha256 sha1" lines, links followed
  (cd "$D" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort | while read -r f; do
    printf '%s %s %s\n' "$f" "$(sha256sum <"$f" | cut -d' ' -f1)" "$(sha1sum <"$f" | cut -d' ' -f1)"
  done)
}
hashes_of >"$SCRATCH/disk"
python3 - "$SPDX" >"$SCRATCH/spdx-files" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in sorted(d["files"], key=lambda f: f["fileName"]):
    c = {x["algorithm"]: x["checksumValue"] for x in f["checksums"]}
    print(f["fileName"][2:], c["SHA256"], c["SHA1"])
PY
check "the SPDX bill holds every file and link of the install, with sha256sum's and sha1sum's hashes" \
  diff "$SCRATCH/disk" "$SCRATCH/spdx-files"
python3 - "$CDX" >"$SCRATCH/cdx-files" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in sorted(d["components"][0]["components"], key=lambda f: f["name"]):
    c = {x["alg"]: x["content"] for x in f["hashes"]}
    print(f["name"], c["SHA-256"], c["SHA-1"])
PY
check "the CycloneDX bill too" diff "$SCRATCH/disk" "$SCRATCH/cdx-files"
check "there are links among them, each named as a link" \
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=[f for f in d["files"] if "symbolic link" in f.get("comment", "")]; sys.exit(not l)' "$SPDX"
check "the package is the archive, with its SHA-256" \
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["packages"][0]; sys.exit(not (p["packageFileName"] == sys.argv[2] and p["checksums"][0]["checksumValue"] == sys.argv[3] and p["versionInfo"] == "9.1.0.70"))' \
  "$SPDX" "$(basename "$a")" "$(sha256sum <"$a" | cut -d' ' -f1)"
check "the package verification code is SPDX's (SHA-1 of the sorted SHA-1s)" \
  python3 -c '
import json, sys, hashlib
d = json.load(open(sys.argv[1]))
code = hashlib.sha1("".join(sorted(c["checksumValue"] for f in d["files"] for c in f["checksums"] if c["algorithm"] == "SHA1")).encode()).hexdigest()
sys.exit(d["packages"][0]["packageVerificationCode"]["packageVerificationCodeValue"] != code)' "$SPDX"
check "the licence is quoted from the install's LICENSE" \
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["hasExtractedLicensingInfos"][0]["extractedText"] != open(sys.argv[2]).read())' "$SPDX" "$D/LICENSE"
check "no acceptance is on record yet, and the bill says so" \
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p={x["name"]: x["value"] for x in d["components"][0]["properties"]}; sys.exit(p["cdm:license-accepted"] != "no")' "$CDX"

# the same bytes at the same SOURCE_DATE_EPOCH: the same bill
first=$(SOURCE_DATE_EPOCH=1700000000 "$CDM" sbom "$ID")
second=$(SOURCE_DATE_EPOCH=1700000000 "$CDM" sbom "$ID")
check "SOURCE_DATE_EPOCH makes the bill reproducible" test -n "$first" -a "$first" = "$second"
check "and is its time" sh -c 'printf "%s" "$1" | grep -q "\"created\":.*\"2023-11-14T22:13:20Z\""' _ "$first"

# by project: a folder, or the nearest project
mkdir -p "$SCRATCH/proj/sub"
run_cdm link "$SCRATCH/proj" "$ID"
run_cdm sbom "$SCRATCH/proj" --format cyclonedx
check "cdm sbom PROJECT: the project's install" sh -c 'printf "%s" "$1" | grep -q "\"cdm:install\",[[:space:]]*\"value\":[[:space:]]*\"$2\""' _ "$OUT" "$ID"
OUT=$(cd "$SCRATCH/proj/sub" && "$CDM" sbom 2>"$SCRATCH/stderr")
RC=$?
check "cdm sbom inside a project: the nearest project's" sh -c '[ "$1" = 0 ] && printf "%s" "$2" | grep -q "\"versionInfo\":[[:space:]]*\"9.1.0.70\""' _ "$RC" "$OUT"

# a file changed after install: no bill vouches for it
lib=$(cd "$D" && find . -type f -name 'libcudnn.so.*' | head -1)
by_hand "$D" sh -c 'printf x >>"$1"' _ "$D/$lib"
run_cdm sbom "$ID"
expect_rc 1 "a tampered install gets no bill"
expect_err "${lib#./}' differs from its record .*cdm verify $ID" "naming the file and what to run"
check "and nothing on stdout" test -z "$OUT"
by_hand "$D" sh -c 'truncate -s -1 "$1"' _ "$D/$lib"
run_cdm sbom "$ID"
expect_rc 0 "put back, the bill is given again"

# the licence on record
b=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz)
run_cdm install "$b" --accept-license
expect_rc 0 "cdm install --accept-license"
run_cdm sbom 9.2.0.82-cuda12 --format cyclonedx
check "the acceptance is on record, by the option" \
  sh -c 'printf "%s" "$1" | grep -q "\"cdm:license-accepted\",[[:space:]]*\"value\":[[:space:]]*\"option\""' _ "$OUT"
run_cdm install "$a" --accept-license
expect_rc 0 "--accept-license for an install already there"
run_cdm sbom "$ID"
check "records it for that install" sh -c 'printf "%s" "$1" | grep -q "accepted on record at .*cdm install --accept-license"' _ "$OUT"

printf '[install]\nrequire_license = true\n' >"$CDM_CONFIG"
c=$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)
before=$(tree_digest "$CDM_ROOT")
run_cdm install "$c"
expect_rc 2 "[install] require_license: an install without acceptance is refused (a usage error)"
expect_err "require_license.*--accept-license" "saying how to accept"
check "with nothing installed" test "$before" = "$(tree_digest "$CDM_ROOT")"
printf '[install]\nrequire_license = true\naccept_license = nvidia-cudnn\n' >"$CDM_CONFIG"
run_cdm install "$c"
expect_rc 0 "[install] accept_license = nvidia-cudnn accepts it"
run_cdm sbom 9.3.0.75-cuda12 --format cyclonedx
check "on record as the config's" \
  sh -c 'printf "%s" "$1" | grep -q "\"cdm:license-accepted\",[[:space:]]*\"value\":[[:space:]]*\"config\""' _ "$OUT"
printf '[install]\naccept_license = yes\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "accept_license takes the licence's name, not yes"
expect_err "accept_license = 'yes'.*nvidia-cudnn" "naming what to give"
: >"$CDM_CONFIG"
run_cdm remove 9.2.0.82-cuda12
run_cdm install "$b"
run_cdm sbom 9.2.0.82-cuda12 --format cyclonedx
check "a removed install's acceptance goes with it" \
  sh -c 'printf "%s" "$1" | grep -q "\"cdm:license-accepted\",[[:space:]]*\"value\":[[:space:]]*\"no\""' _ "$OUT"

run_cdm sbom "$ID" --format xml
expect_rc 2 "--format takes spdx or cyclonedx"

# a wheel's install: the package is the wheel's project, the licence its dist-info's
PY=$(command -v python3)
mkdir -p "$SCRATCH/wheels"
w=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu13 9.19.0.56)
run_cdm install "$w"
expect_rc 0 "a wheel installed"
run_cdm sbom 9.19.0.56-cuda13
check "its bill names the wheel's project and file" \
  sh -c 'printf "%s" "$1" | grep -q "\"name\":[[:space:]]*\"nvidia-cudnn-cu13\"" && printf "%s" "$1" | grep -q "\"packageFileName\":[[:space:]]*\"$2\""' _ "$OUT" "$(basename "$w")"

done_testing
