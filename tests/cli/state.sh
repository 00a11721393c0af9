# The user's state apart from the store: where it is, history an older index kept moved
# into it (with kills at each step of the move), and links into one store counted apart
# from links into another.
. "$TESTS_DIR/cli/lib.sh" || exit 1

sql() { # DB SQL: rows as a|b lines
  python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchall(); c.commit(); print("\n".join("|".join(str(x) for x in row) for row in r))' "$@"
}
B=9.2.0.82-cuda12
for v in 9.1.0.70 9.2.0.82; do
  run_cdm install "$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz")"
done
P=$SCRATCH/project
mkdir -p "$P"
P=$(cd "$P" && pwd -P)
run_cdm link "$P" 9.1
run_cdm link "$P" 9.2
expect_rc 0 "link a project twice"
check "the history is in the user's state, under the data folder" test -f "$STATE_DB"
check "not in the store's index" test "$(sql "$CDM_ROOT/cdm.db" "SELECT COUNT(*) FROM generations")" = 0
check "each generation names its store" \
  test "$(sql "$STATE_DB" "SELECT DISTINCT store FROM generations")" = "$CDM_ROOT"

# ---- an index written before the split: its history moves across on first open ---------
# Made from this state: the rows go back into the index as an older cdm kept them (no store
# column), with an attachment record, and the state file is deleted.
old_index() {
  rm -f "$SCRATCH/old.db"
  cp "$STATE_DB" "$SCRATCH/old.db"
  python3 - "$CDM_ROOT/cdm.db" "$SCRATCH/old.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("ATTACH DATABASE ? AS s", (sys.argv[2],))
db.execute("DELETE FROM generations")
db.execute("INSERT INTO generations SELECT project, generation, install_id, action, link_name, time, state FROM s.generations")
db.execute("INSERT INTO attachments (venv, folder, project, target, original, install_id, wheel, time, state) VALUES ('/v', '/v/lib', '/p', '/p/cuda_link/lib', '/kept', '9.1.0.70-cuda12', 'w 1', 5, 'detached')")
db.commit()
PY
  rm -f "$STATE_DB" "$STATE_DB"-wal "$STATE_DB"-shm
}
history_of() { sql "$1" "SELECT generation, install_id, action FROM generations WHERE project = '$P' ORDER BY generation" | tr '\n' ' '; }
want=$(history_of "$STATE_DB")
old_index
check "the made-up old index holds the history" test "$(history_of "$CDM_ROOT/cdm.db")" = "$want"

for point in history-copied history-moved; do
  CDM_CRASH_AT=$point "$CDM" history "$P" >/dev/null 2>&1
  check "killed at $point" test $? -eq 137
done
check "after both kills the index's rows are gone" \
  test "$(sql "$CDM_ROOT/cdm.db" "SELECT COUNT(*) FROM generations")" = 0
check "and the state knows a move was under way" test "$(sql "$STATE_DB" "SELECT COUNT(*) FROM moving")" = 1
run_cdm history "$P" --json
expect_rc 0 "the next command finishes the move"
check "the history is intact: the same numbers, installs and actions, once each" \
  test "$(history_of "$STATE_DB")" = "$want"
check "history --json shows it, the newest current" test "$(json '[(g["generation"], g["current"]) for g in d]')" = "[(1, False), (2, True)]"
check "the attachment moved too" \
  test "$(sql "$STATE_DB" "SELECT venv, state FROM attachments")" = "/v|detached"
check "nothing is left under way" test "$(sql "$STATE_DB" "SELECT COUNT(*) FROM moving")" = 0

# A kill right after the copy, then a plain run: nothing copied twice.
sql "$STATE_DB" "DELETE FROM attachments" >/dev/null
old_index
CDM_CRASH_AT=history-copied "$CDM" list >/dev/null 2>&1
run_cdm list --json
expect_rc 0 "after a kill right after the copy, list finishes the move"
expect_err "moved the projects' history" "and says so"
check "no generation was copied twice" test "$(history_of "$STATE_DB")" = "$want"
check "list shows the project using 9.2" test "$(json '[i["projects"] for i in d if i["id"] == "'$B'"][0] == ["'"$P"'"]')" = True
run_cdm remove 9.2
expect_rc 1 "remove still refuses while this user's project links it"
expect_err "linked by '$P'" "and names the project"

# ---- a second store for the same user: its installs are not used by links into the first
S2=$SCRATCH/store2
run_cdm --root "$S2" install "$(fixture "cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz")"
expect_rc 0 "the same version in a second store"
run_cdm --root "$S2" list --json
check "there, no project uses it" test "$(json 'd[0]["projects"]')" = "[]"
run_cdm --root "$S2" remove 9.2
expect_rc 0 "and remove from the second store does not see the first store's link"

# ---- CDM_STATE puts the state elsewhere ------------------------------------------------
Q=$SCRATCH/q
mkdir -p "$Q"
CDM_STATE=$SCRATCH/elsewhere/state.db run_cdm link "$Q" 9.1
expect_rc 0 "link with CDM_STATE set"
check "its history is in that file" \
  test "$(sql "$SCRATCH/elsewhere/state.db" "SELECT COUNT(*) FROM generations")" = 1
run_cdm history "$Q"
check "and not in the default state" test -z "$OUT"

done_testing
