# Chained stores from cdm.exe under Wine: a site's store (made by cdm.exe) as [store]
# upstream below an empty store of the user's. The project is linked into the upstream's
# folder (a junction where the drive makes one; Wine's Z: drive takes none, and the
# project then points there without one); which, verify and activation follow it;
# remove refuses; nothing changes upstream; the upstream moved away fails the doctor by
# name, and back again all works.
. "$TESTS_DIR/win/lib.sh"

UP=$SCRATCH/site
win918=$(fixture cudnn-windows-x86_64-9.18.0.20_cuda13-archive.zip)
run_cdm --root "$(wpath "$UP")" install "$(wpath "$win918")"
expect_rc 0 "the site's store gets 9.18 (cdm.exe)"
upstream_digest() {
  (cd "$UP" && find . -type f -exec sha256sum {} + | sort && find . -printf '%y %p %s %m\n' | sort)
}
BEFORE=$(upstream_digest)

CDM_ROOT=$(wpath "$SCRATCH/mine")
export CDM_ROOT
printf '[store]\nupstream = %s\n' "$(wpath "$UP")" >"$SCRATCH/config.ini"
run_cdm list --json
expect_rc 0 "cdm.exe list over the upstream"
check "shows the upstream's install" test "$(json '[(i["id"], i["upstream"]) for i in d]')" = "[('9.18.0.20-cuda13', 1)]"
mkdir -p "$SCRATCH/proj"
run_cdm link "$(wpath "$SCRATCH/proj")" 9.18
expect_rc 0 "cdm.exe link to the upstream's version"
run_cdm which "$(wpath "$SCRATCH/proj")" --json
check "which follows the project into the upstream" \
  test "$(json 'd["id"] + " " + d["target"]')" = "9.18.0.20-cuda13 $(wpath "$UP")\\9.18.0.20-cuda13"
run_cdm activate --shell pwsh "$(wpath "$SCRATCH/proj")"
expect_rc 0 "the project activates (PowerShell)"
run_cdm verify --json
expect_rc 0 "verify reads the upstream's files"
check "as installed" test "$(json 'd["installs"], d["problems"]')" = "(1, [])"
run_cdm remove 9.18
expect_rc 1 "remove refuses an upstream install"
check "nothing changed upstream" test "$(upstream_digest)" = "$BEFORE"

mv "$UP" "$UP.away"
run_cdm doctor "$(wpath "$SCRATCH/proj")"
expect_rc 1 "with the upstream gone, the doctor fails"
check "naming it" sh -c 'printf "%s" "$1" | grep -q "^fail  store.upstream .*is not there"' _ "$OUT"
run_cdm list
expect_rc 0 "list goes on"
mv "$UP.away" "$UP"
run_cdm doctor "$(wpath "$SCRATCH/proj")"
check "back again, the upstream is found, and the project's link fails no more" \
  sh -c 'printf "%s" "$1" | grep -q "^ok    store.upstream" && ! printf "%s" "$1" | grep -q "^fail  project.link"' _ "$OUT"
check "and it is as it was" test "$(upstream_digest)" = "$BEFORE"
done_testing
