# An index or state written by a newer cdm: usable by this one while the newer steps only
# add (schema_info's readable_from at most the schema this cdm knows), and refused, with
# the file untouched, once a newer step says older cdms must not use it.
. "$TESTS_DIR/cli/lib.sh" || exit 1

DB=$CDM_ROOT/cdm.db
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
expect_rc 0 "an install makes the index"
N=$(sql_on "$DB" "PRAGMA user_version")
check "the index says from which schema a cdm may use it (schema $N)" \
  test "$(sql_on "$DB" "SELECT value FROM schema_info WHERE name = 'readable_from'")" -le "$N"

# What a newer cdm of the same rule would have done: one more step that only adds.
sql_on "$DB" "CREATE TABLE later_notes (id INTEGER PRIMARY KEY, note TEXT);
  ALTER TABLE installs ADD COLUMN later_column TEXT DEFAULT 'kept';
  INSERT INTO later_notes (note) VALUES ('from a newer cdm');
  PRAGMA user_version = $((N + 1))"
run_cdm list --json
expect_rc 0 "an index one additive step newer is read"
check "with its installs" test "$(json 'd[0]["id"]')" = 9.1.0.70-cuda12
run_cdm install "$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz)"
expect_rc 0 "and written: an install"
mkdir -p "$SCRATCH/p"
run_cdm link "$SCRATCH/p" 9.1
run_cdm link "$SCRATCH/p" 9.2
expect_rc 0 "links"
run_cdm verify
expect_rc 0 "a verify of both installs"
check "the newer step's schema is left as it was" \
  test "$(sql_on "$DB" "PRAGMA user_version")" = $((N + 1))
check "its table and rows too" test "$(sql_on "$DB" "SELECT note FROM later_notes")" = "from a newer cdm"
check "and its column's default fills this cdm's new row" \
  test "$(sql_on "$DB" "SELECT later_column FROM installs WHERE id = '9.2.0.82-cuda12'")" = kept

# A newer step that older cdms must not use.
sql_on "$DB" "UPDATE schema_info SET value = $((N + 1)) WHERE name = 'readable_from'; SELECT 1" >/dev/null
before=$(sha256sum "$DB")
run_cdm list
expect_rc 1 "an index that a newer step closed to older cdms is refused"
expect_err "index '$DB' was written by a newer cdm \(schema $((N + 1)), which a cdm of schema $((N + 1)) or later can use; this one knows $N\); upgrade cdm" \
  "naming the file, both schemas and what to do"
run_cdm install "$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)"
expect_rc 1 "an install is refused too"
check "and the index is as it was" test "$(sha256sum "$DB")" = "$before"
check "with nothing installed" test ! -e "$CDM_ROOT/9.3.0.75-cuda12"

# An index of a newer schema that has no readable_from at all (no rule known): refused.
sql_on "$DB" "DROP TABLE schema_info; SELECT 1" >/dev/null
run_cdm list
expect_rc 1 "a newer index without readable_from is refused"
expect_err "schema $((N + 1)), which a cdm of schema $((N + 1)) or later can use" "as newer"

# The user's state follows the same rule.
S=$(sql_on "$STATE_DB" "PRAGMA user_version")
check "the state says from which schema a cdm may use it" \
  test "$(sql_on "$STATE_DB" "SELECT value FROM schema_info WHERE name = 'readable_from'")" -le "$S"
sql_on "$STATE_DB" "CREATE TABLE later_state (x INTEGER); PRAGMA user_version = $((S + 1))"
sql_on "$DB" "CREATE TABLE schema_info (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
  INSERT INTO schema_info VALUES ('readable_from', $N); SELECT 1" >/dev/null
run_cdm rollback "$SCRATCH/p"
expect_rc 0 "a state one additive step newer is written (a rollback)"
sql_on "$STATE_DB" "UPDATE schema_info SET value = $((S + 1)) WHERE name = 'readable_from'; SELECT 1" >/dev/null
run_cdm link "$SCRATCH/p" 9.2
expect_rc 1 "a state closed to older cdms is refused"
expect_err "state '$STATE_DB' was written by a newer cdm" "naming the state's file"
check "and the project's link is as it was" test "$(readlink "$SCRATCH/p/cuda_link")" = "$CDM_ROOT/9.1.0.70-cuda12"

# A database cdm did not make, where its index would be: refused, and left exactly as it
# was (its journal mode too: no -wal or -shm beside it).
F=$SCRATCH/foreign-store
mkdir -p "$F"
sql_on "$F/cdm.db" "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine'); SELECT 1" >/dev/null
before=$(sha256sum <"$F/cdm.db")
CDM_ROOT=$F run_cdm install "$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)"
expect_rc 1 "a store whose cdm.db is someone else's database is refused"
expect_err "index '$F/cdm.db' is an SQLite database cdm did not make" "naming it"
check "the file is as it was" test "$(sha256sum <"$F/cdm.db")" = "$before"
check "in its journal mode, with no -wal or -shm made beside it" \
  test ! -e "$F/cdm.db-wal" -a ! -e "$F/cdm.db-shm" -a "$(sql_on "$F/cdm.db" "PRAGMA journal_mode")" = delete
CDM_ROOT=$F run_cdm list
expect_rc 1 "list refuses it too"
check "and leaves no -wal either" test ! -e "$F/cdm.db-wal"
done_testing
