# A store shared read-only (a read-only bind mount, as an NFS or SMB export would be): two
# users, each with a HOME and so a state of their own, link and activate from it at once
# without seeing each other's projects; install, remove and gc refuse, naming the store's
# writer; [store] shared = read-only opens the index immutable and refuses writes up front.
. "$TESTS_DIR/cli/lib.sh" || exit 1

WRITER=$SCRATCH/store
RO=$SCRATCH/ro
mkdir -p "$RO"
for v in 9.1.0.70 9.2.0.82; do
  run_cdm --root "$WRITER" install "$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz")"
done
expect_rc 0 "the writer fills the store"
# ---- cdm install --from-store: one version copied into a store of one's own ---------------
LOCAL=$SCRATCH/local
run_cdm --root "$LOCAL" install --from-store "$WRITER" 9.2 --json
expect_rc 0 "install --from-store copies a version from another store"
check "reported as changed, with the other store's id and hash" \
  test "$(json 'd["changed"], d["id"], d["path"]')" = "(True, '9.2.0.82-cuda12', '$LOCAL/9.2.0.82-cuda12')"
check "the copy is the same tree (types, names, sizes, links, modes)" \
  test "$(cd "$WRITER/9.2.0.82-cuda12" && find . -printf '%y %p %s %l %m\n' | sort)" = \
  "$(cd "$LOCAL/9.2.0.82-cuda12" && find . -printf '%y %p %s %l %m\n' | sort)"
run_cdm --root "$LOCAL" verify 9.2
expect_rc 0 "and verifies against its record here"
run_cdm --root "$LOCAL" install --from-store "$WRITER" 9.2 --json
check "a second time changes nothing" test "$(json 'd["changed"]')" = False
lib=$WRITER/9.1.0.70-cuda12/lib/libcudnn.so.9.1.0
cp "$lib" "$SCRATCH/lib.bak"
by_hand "$WRITER/9.1.0.70-cuda12" sh -c 'printf X | dd of="$1" bs=1 seek=3 conv=notrunc 2>/dev/null' _ "$lib"
run_cdm --root "$LOCAL" install --from-store "$WRITER" 9.1
expect_rc 1 "a file that no longer matches the other store's record is refused"
expect_err "'$lib' does not match the record of its store.*run 'cdm verify' on that store" \
  "naming the file and what to do"
check "and nothing of it is left here" \
  test ! -e "$LOCAL/9.1.0.70-cuda12" -a -z "$(ls -A "$LOCAL/.staging")"
by_hand "$WRITER/9.1.0.70-cuda12" cp "$SCRATCH/lib.bak" "$lib"
run_cdm --root "$LOCAL" install --from-store "$SCRATCH/nowhere" 9.1
expect_rc 1 "a folder that is no store is refused"
expect_err "'$SCRATCH/nowhere' is no cdm store" "saying so"

# ---- a forged store: as untrusted as an archive -------------------------------------------
# forge NAME SQL: a copy of the writer's store with SQL run on its index, in $FORGED
forge() {
  FORGED=$SCRATCH/forged-$1
  rm_tree "$FORGED" "$SCRATCH/escaped" "$SCRATCH/victim"
  cp -a "$WRITER" "$FORGED"
  python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' \
    "$FORGED/cdm.db" "$2"
}
# from_forged "description" PATTERN: installing 9.2 from $FORGED is refused, naming why, and
# nothing of it is left, here or outside the store
from_forged() {
  rm_tree "$SCRATCH/local2"
  run_cdm --root "$SCRATCH/local2" install --from-store "$FORGED" 9.2
  expect_rc 1 "$1 is refused"
  expect_err "$2" "naming the record and why"
  check "nothing of it is left here or written outside ($1)" \
    test ! -e "$SCRATCH/local2/9.2.0.82-cuda12" -a ! -e "$SCRATCH/escaped" -a \
    -z "$(ls -A "$SCRATCH/local2/.staging" 2>/dev/null)"
}
L=9.2.0.82-cuda12
forge up "INSERT INTO files (install_id, path, size, sha256, mode) SELECT '$L', 'lib/../../../../escaped', size, sha256, mode FROM files WHERE install_id = '$L' AND path = 'lib/libcudnn.so.9.2.0';"
from_forged "a recorded path that goes up with '..'" "record 'lib/\.\./\.\./\.\./\.\./escaped' goes up with '\.\.'"
forge absolute "UPDATE files SET link_target = '/etc/passwd' WHERE install_id = '$L' AND path = 'lib/libcudnn.so';"
from_forged "a recorded link to an absolute path" \
  "record 'lib/libcudnn.so' \(a link to '/etc/passwd'\) points to an absolute path"
forge uplink "UPDATE files SET link_target = '../../../../etc/shadow' WHERE install_id = '$L' AND path = 'lib/libcudnn.so';"
from_forged "a recorded link that leads up" \
  "record 'lib/libcudnn.so' \(a link to '\.\./\.\./\.\./\.\./etc/shadow'\) does not point to a name beside it"
forge abspath "UPDATE files SET path = '/escaped' WHERE install_id = '$L' AND path = 'lib/libcudnn.so';"
from_forged "a recorded absolute path" "record '/escaped' is an absolute path"
# the rows as written, the tree on disk not: lib is a link to a folder outside the store
forge linkdir ""
mkdir -p "$SCRATCH/victim"
by_hand "$FORGED/$L" sh -c 'mv "$1/lib" "$2/lib" && ln -s "$2/lib" "$1/lib"' _ "$FORGED/$L" "$SCRATCH/victim"
from_forged "a folder of the other store that is a link leading out" \
  "cannot read '$FORGED/$L/lib/[^']*': 'lib' is a link; cdm follows no link in that tree"
forge record "UPDATE installs SET lib_dir = '../../../etc', include_dir = '/usr/include' WHERE id = '$L';"
rm_tree "$SCRATCH/local2"
run_cdm --root "$SCRATCH/local2" install --from-store "$FORGED" 9.2 --json
expect_rc 0 "a forged record of the folders installs"
run_cdm --root "$SCRATCH/local2" list --json
check "but with the folders found on disk, not the recorded ones" \
  test "$(json 'd[0]["lib_dir"], d[0]["include_dir"]')" = "('lib', 'include')"

if ! mount --bind -o ro "$WRITER" "$RO" 2>"$SCRATCH/mount.err"; then
  skip "a read-only store" "mount --bind -o ro is not allowed here: $(head -1 "$SCRATCH/mount.err")"
  done_testing
  exit 0
fi
trap 'umount "$RO" 2>/dev/null; rm_tree "$SCRATCH"' EXIT
check "the mount is read-only" sh -c '! touch "$1/x" 2>/dev/null' _ "$RO"
export CDM_ROOT=$RO

# user NAME CMD...: cdm as that user (their own HOME, so their own state)
user() {
  local name=$1
  shift
  mkdir -p "$SCRATCH/$name"
  HOME=$SCRATCH/$name "$CDM" "$@"
}
PA=$SCRATCH/alice/project PB=$SCRATCH/bob/project
mkdir -p "$PA" "$PB"

# Both at once, several times each, into the one read-only store.
(for _ in 1 2 3; do user alice link "$PA" 9.1 >/dev/null && user alice link "$PA" 9.2 >/dev/null || exit 1; done) &
a=$!
(for _ in 1 2 3; do user bob link "$PB" 9.2 >/dev/null && user bob link "$PB" 9.1 >/dev/null || exit 1; done) &
b=$!
wait $a
check "alice links from the read-only store" test $? -eq 0
wait $b
check "bob links from it at the same time" test $? -eq 0
check "alice's link points into it" test "$(readlink "$PA/cuda_link")" = "$RO/9.2.0.82-cuda12"
check "bob's too" test "$(readlink "$PB/cuda_link")" = "$RO/9.1.0.70-cuda12"
check "each user's history is in their own state" \
  test -f "$SCRATCH/alice/.local/share/cdm/state.db" -a -f "$SCRATCH/bob/.local/share/cdm/state.db"
OUT=$(user alice activate "$PA" --shell bash)
check "alice activates her project" sh -c 'printf "%s" "$1" | grep -q "CUDNN_PATH=.$2/cuda_link"' _ "$OUT" "$PA"
OUT=$(user bob list --json)
check "bob's list shows his project only" \
  test "$(json '[(i["id"], i["projects"]) for i in d]')" = "[('9.1.0.70-cuda12', ['$PB']), ('9.2.0.82-cuda12', [])]"
OUT=$(user alice history "$PA" --json)
check "alice's history has her 6 changes" test "$(json 'len(d)')" = 6
check "verify works on the read-only store" user alice verify
OUT=$(user bob doctor "$PB" --json 2>/dev/null)
check "the doctor's store checks pass on it" \
  test "$(json '[c["status"] for c in d["checks"] if c["name"].startswith("store.")]' 2>/dev/null)" = "['ok', 'ok', 'ok']"

# Writes refuse, naming the writer (the owner of the index).
owner=$(stat -c %U "$WRITER/cdm.db")
for cmd in "install $(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)" "remove 9.1" "gc"; do
  # shellcheck disable=SC2086 # the command and its arguments are words
  HOME=$SCRATCH/alice run_cdm $cmd
  expect_rc 1 "${cmd%% *} refuses on the read-only store"
  expect_err "cannot change the store '$RO'.*Read-only file system.*its writer \\($owner, who owns it\\)" \
    "${cmd%% *} names the store, why and its writer"
done
user alice unlink "$PA" >/dev/null
check "unlink works on it" test ! -e "$PA/cuda_link"

# [store] shared = read-only: the index is opened immutable (nothing of SQLite's is
# written next to it, even where it could be) and writes refuse before trying.
printf '[store]\nshared = read-only\n' >"$CDM_CONFIG"
OUT=$(CDM_ROOT=$WRITER user alice list --json)
check "list reads the store immutable" test "$(json 'len(d)')" = 2
CDM_ROOT=$WRITER user alice link "$PA" 9.1 >/dev/null
check "link works" test "$(readlink "$PA/cuda_link")" = "$WRITER/9.1.0.70-cuda12"
CDM_ROOT=$WRITER HOME=$SCRATCH/alice run_cdm remove 9.1
expect_rc 1 "remove refuses"
expect_err "it is shared read-only \\(\\[store\\] shared in config" "saying the configuration says so"
check "and the install is still there" test -d "$WRITER/9.1.0.70-cuda12"
printf '[store]\nshared = sometimes\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "another value of [store] shared is a configuration error"
expect_err "\\[store\\] shared = 'sometimes'" "naming it"

done_testing
