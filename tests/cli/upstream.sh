# Chained stores ([store] upstream): a site's store, made read-only (a read-only bind mount
# as root, else a folder without write bits), below a user's own, empty one. The user lists,
# links, activates, verifies and bills an upstream version: 0 bytes change upstream (its
# tree's hashes and names) and the user's store stays under 1 MiB. Remove refuses it. The
# upstream then vanishes (unmounted, or moved away): the doctor fails naming it, and the
# user's own work goes on; back again, the project works as before.
. "$TESTS_DIR/cli/lib.sh" || exit 1
UP=$SCRATCH/site
RO=$SCRATCH/site-ro
trap 'umount "$RO" 2>/dev/null; chmod -R u+w "$UP" "$UP.away" 2>/dev/null; rm_tree "$SCRATCH"' EXIT

A12=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz --pad 65536)
A13=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda13-archive.tar.xz --pad 65536)
CDM_ROOT=$UP run_cdm install "$A12"
expect_rc 0 "the site's store has 9.1.0.70-cuda12"

# upstream_digest: every file's hash, and every entry's kind, name, size and mode
upstream_digest() {
  (cd "$UP" && find . -type f -exec sha256sum {} + | sort && find . -printf '%y %p %s %m\n' | sort)
}
# first writable, as the site's own account sees it: reading it must write nothing there
# either (not even the -shm of its write-ahead log)
WRITABLE=$(upstream_digest)
printf '[store]\nupstream = %s\n' "$UP" >"$CDM_CONFIG"
CDM_ROOT=$SCRATCH/first run_cdm list
CDM_ROOT=$SCRATCH/first run_cdm verify
expect_rc 0 "a writable upstream is listed and verified"
check "and nothing of it changed" test "$(upstream_digest)" = "$WRITABLE"

mkdir -p "$RO"
if [ "$(id -u)" = 0 ] && mount --bind "$UP" "$RO" 2>/dev/null && mount -o remount,ro,bind "$RO" 2>/dev/null; then
  HOW=mount
  check "the upstream is a read-only bind mount" sh -c '! touch "$1/x" 2>/dev/null' _ "$RO"
else
  umount "$RO" 2>/dev/null
  rmdir "$RO"
  ln -s "$UP" "$RO"
  chmod -R a-w "$UP"
  HOW=bits
  diag "not root (or no mount): the upstream is a folder without write bits"
fi
BEFORE=$(upstream_digest)

export CDM_ROOT=$SCRATCH/mine
printf '[store]\nupstream = %s\n' "$RO" >"$CDM_CONFIG"
mkdir -p "$SCRATCH/proj"
run_cdm list --json
expect_rc 0 "cdm list over an upstream"
check "shows the upstream's install, where it lives" \
  test "$(json '[(i["id"], i["upstream"], i["path"]) for i in d]')" = "[('9.1.0.70-cuda12', 1, '$RO/9.1.0.70-cuda12')]"
run_cdm list
check "the table marks it read only" sh -c 'printf "%s" "$1" | grep -q "9.1.0.70-cuda12 (upstream, read only)"' _ "$OUT"
run_cdm link "$SCRATCH/proj" 9.1.0
expect_rc 0 "cdm link to the upstream's version"
check "the link leads into the upstream" test "$(readlink "$SCRATCH/proj/cuda_link")" = "$RO/9.1.0.70-cuda12"
run_cdm which "$SCRATCH/proj" --json
check "cdm which knows the install" test "$(json 'd["id"]')" = 9.1.0.70-cuda12
run_cdm activate --shell bash "$SCRATCH/proj"
expect_rc 0 "the project activates"
run_cdm resolve "$SCRATCH/proj" --json
check "cdm resolve weighs the upstream's install" test "$(json 'd["chosen"]')" = 9.1.0.70-cuda12
run_cdm install 9.1.0 --cuda 12
expect_rc 0 "cdm install of a version the upstream has"
expect_err "is installed in an upstream store .*read only.*nothing to do" "installs nothing, saying where it is"
run_cdm verify --json
expect_rc 0 "cdm verify reads the upstream's files"
check "and finds them as installed" test "$(json 'd["installs"], d["files"] > 20, d["problems"]')" = "(1, True, [])"
run_cdm sbom 9.1.0
expect_rc 0 "a bill of materials of the upstream install"
run_cdm remove 9.1.0
expect_rc 1 "cdm remove refuses an upstream install"
expect_err "lives in the upstream store '$RO'.*which cdm only reads" "saying whose it is"
run_cdm gc --unused
expect_rc 0 "gc --unused"
check "0 bytes changed upstream: its hashes, names, sizes and modes" test "$(upstream_digest)" = "$BEFORE"
check "the user's store is under 1 MiB" test "$(du -sb "$CDM_ROOT" 2>/dev/null | cut -f1 || echo 0)" -lt 1048576

# the user's own install, beside the upstream's
run_cdm install "$A13"
expect_rc 0 "an install of the user's own"
run_cdm list --json
check "list tells the two apart" \
  test "$(json 'sorted((i["id"], i["upstream"]) for i in d)')" = "[('9.1.0.70-cuda12', 1), ('9.1.0.70-cuda13', 0)]"

# the upstream vanishes
if [ "$HOW" = mount ]; then umount "$RO"; else mv "$UP" "$UP.away"; fi
run_cdm doctor "$SCRATCH/proj"
expect_rc 1 "with the upstream gone, the doctor fails"
check "naming the upstream store" sh -c 'printf "%s" "$1" | grep -q "^fail  store.upstream .*'"'"'$2'"'"' (\[store\] upstream) is not there"' _ "$OUT" "$RO"
check "and the project's link into it" sh -c 'printf "%s" "$1" | grep -q "^fail  project.link .*in an upstream store that is not there"' _ "$OUT"
run_cdm list --json
expect_rc 0 "cdm list goes on"
expect_err "upstream store '$RO' \(\[store\] upstream\) is not there" "warning about the upstream"
check "with the user's own install" test "$(json '[i["id"] for i in d]')" = "['9.1.0.70-cuda13']"
mkdir -p "$SCRATCH/proj2"
run_cdm link "$SCRATCH/proj2" 9.1.0 --cuda 13
expect_rc 0 "another project links to the user's own install"
run_cdm verify
expect_rc 0 "verify of the user's own store passes"
check "the project's link is as it was" test "$(readlink "$SCRATCH/proj/cuda_link")" = "$RO/9.1.0.70-cuda12"

# back again
if [ "$HOW" = mount ]; then mount --bind "$UP" "$RO" && mount -o remount,ro,bind "$RO"; else mv "$UP.away" "$UP"; fi
run_cdm doctor "$SCRATCH/proj"
check "back again, the doctor finds the upstream and the link" \
  sh -c 'printf "%s" "$1" | grep -q "^ok    store.upstream" && printf "%s" "$1" | grep -q "^ok    project.link"' _ "$OUT"
check "and the upstream is as it was" test "$(upstream_digest)" = "$BEFORE"
done_testing
