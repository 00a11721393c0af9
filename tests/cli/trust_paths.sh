# Trust boundaries, audited for every writer: names the index and the state give that become
# paths stay plain names; cdm's own files and folders are never written through a link
# (the user's default, persist's environment.d file, the store's views/); a record that
# names another file is not acted on; and the temporary files a kill leaves (a writer's
# <file>.cdm-<pid>.tmp, a store delete's aside folder, a trace's socket folder) go once
# their process is gone.
. "$TESTS_DIR/cli/lib.sh" || exit 1
. "$TESTS_DIR/cli/lib_toolkit.sh" || exit 1

sql() { # DB STATEMENT: run one statement on an SQLite file (the index and the state are the
  # owner's to write, unlike the store's installs)
  python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute(sys.argv[2]); db.commit()' "$1" "$2"
}
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
A=9.1.0.70-cuda12
DEAD=2147483646 # a process id no process has
VICTIM=$SCRATCH/victim
mkdir -p "$VICTIM"
echo precious >"$VICTIM/notes.txt"
intact() { [ "$(cat "$VICTIM/notes.txt" 2>/dev/null)" = precious ] && [ "$(ls -A "$VICTIM")" = notes.txt ]; }

# ---- names from the index and the state ---------------------------------------------------------
sql "$CDM_ROOT/cdm.db" "UPDATE installs SET id = '../../victim/x' WHERE id = '$A'"
run_cdm list
check "an install record whose id is a path is refused (status 1)" test "$RC" -eq 1
expect_err "records an install '../../victim/x', which is no plain name" "naming it"
run_cdm modulefiles --into "$SCRATCH/modules"
check "modulefiles for that index: refused, nothing written outside" \
  sh -c '[ "$1" -ne 0 ] && [ ! -e "$2/x" ] && [ ! -e "$2/x.lua" ]' _ "$RC" "$VICTIM"
check "and the folder it leads to is intact" intact
sql "$CDM_ROOT/cdm.db" "UPDATE installs SET id = '$A' WHERE id = '../../victim/x'"
sql "$CDM_ROOT/cdm.db" "UPDATE installs SET bin_dir = '../../../victim' WHERE id = '$A'"
run_cdm list --json
check "a recorded folder that leaves the install is kept inside it (the install's own)" \
  test "$RC" -eq 0 -a "$(json 'd[0]["bin_dir"]')" = ""
sql "$CDM_ROOT/cdm.db" "UPDATE installs SET bin_dir = 'bin' WHERE id = '$A'"
run_cdm list
expect_rc 0 "the index as cdm wrote it reads again"

P=$SCRATCH/project
mkdir -p "$P"
run_cdm link "$P" 9.1
sql "$STATE_DB" "UPDATE generations SET link_name = '../victim' WHERE project = '$P'"
run_cdm which "$P"
check "a generation whose link name is a path is refused (status 1)" test "$RC" -ne 0
expect_err "names '../victim', which is no plain name" "naming it"
run_cdm unlink "$P"
check "nothing is removed through it" intact
sql "$STATE_DB" "UPDATE generations SET link_name = 'cuda_link' WHERE project = '$P'"
run_cdm which "$P"
expect_rc 0 "the state as cdm wrote it reads again"

# ---- cdm's own files and folders are not written through a link ---------------------------------
state_dir=$(dirname "$STATE_DB")
mkdir -p "$state_dir"
ln -s "$VICTIM/notes.txt" "$state_dir/default"
run_cdm default 9.1
check "the default's file as a link: refused (status 1)" test "$RC" -ne 0
expect_err "is a link where cdm keeps a file of its own" "saying so"
check "and nothing written through it" intact
rm "$state_dir/default"

envd=$HOME/.config/environment.d/60-cdm-default.conf
mkdir -p "$(dirname "$envd")"
ln -s "$VICTIM/notes.txt" "$envd"
run_cdm default 9.1
run_cdm default --persist
check "persist's environment.d file as a link: refused, nothing written through it" \
  sh -c '[ "$1" -ne 0 ]' _ "$RC"
check "the file it leads to is intact" intact
rm "$envd"
run_cdm default --persist
expect_rc 0 "persist once the link is gone"
run_cdm default --unset
run_cdm default 9.1
run_cdm default --persist
sed -i "s|^envd=.*|envd=$VICTIM/notes.txt|" "$state_dir/persisted"
run_cdm default --unpersist
check "a persist record naming another file: unpersist refuses" test "$RC" -ne 0
expect_err "names '$VICTIM/notes.txt' as its environment.d file, but persist writes" "naming both"
check "and removes nothing" intact
sed -i "s|^envd=.*|envd=$envd|" "$state_dir/persisted"
run_cdm default --unpersist
expect_rc 0 "unpersist with the record as cdm wrote it"
run_cdm default --unset

TK=$SCRATCH/cuda-12.4
make_toolkit "$TK" 12.4.1 json
# (no view was made yet: the store's root is its owner's to write, as cdm makes entries there)
ln -s "$VICTIM" "$CDM_ROOT/views"
run_cdm link "$P" 9.1 --toolkit "$TK"
check "the store's views/ as a link: no view is built through it" intact
run_cdm gc
check "and gc deletes nothing through it" intact
rm "$CDM_ROOT/views"

# ---- what a kill leaves -------------------------------------------------------------------------------
echo half >"$state_dir/default.cdm-$DEAD.tmp"
echo mine >"$state_dir/default.cdm-$$.tmp"
run_cdm gc
check "gc removes a state file's temporary file whose writer is gone" test ! -e "$state_dir/default.cdm-$DEAD.tmp"
check "but not one of a running process" test -e "$state_dir/default.cdm-$$.tmp"
rm -f "$state_dir/default.cdm-$$.tmp"
echo half >"$state_dir/default.cdm-$DEAD.tmp"
run_cdm default 9.1
check "the next write of that file removes it too" test ! -e "$state_dir/default.cdm-$DEAD.tmp"
run_cdm default --unset

other=$SCRATCH/other-store
mkdir -p "$other.cdm-deleting-$DEAD/9.1.0.70-cuda12"
echo x >"$other.cdm-deleting-$DEAD/9.1.0.70-cuda12/f"
chmod a-w "$other.cdm-deleting-$DEAD/9.1.0.70-cuda12/f" "$other.cdm-deleting-$DEAD/9.1.0.70-cuda12"
run_cdm --root "$other" store delete
check "a store delete killed after its rename: the next one removes what it left" \
  sh -c '[ "$1" -eq 0 ] && [ ! -e "$2" ]' _ "$RC" "$other.cdm-deleting-$DEAD"

mkdir -p "$SCRATCH/tmp/cdm-trace.$DEAD.AbCdEf"
(cd "$P" && TMPDIR=$SCRATCH/tmp "$CDM" doctor --allow-cpu -- true >/dev/null 2>&1)
check "a trace's socket folder a kill left goes at the next trace" test ! -e "$SCRATCH/tmp/cdm-trace.$DEAD.AbCdEf"
check "and the trace leaves none of its own" test -z "$(ls -A "$SCRATCH/tmp")"
done_testing
