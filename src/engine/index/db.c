/* The index's connection: opening, migrations by PRAGMA user_version, transactions, and
 * the helpers the other db*.c files share. */
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/fs_volume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Migrations, applied in order, one transaction each, by PRAGMA user_version.
 * Never edit a step that has shipped: add a new one (tables and columns only grow).
 *
 * A file of a newer schema stays usable by an older cdm (a store shared by many machines
 * is not upgraded everywhere at once) as long as the steps it lacks only add: a table, an
 * index, a column with a default that its inserts may leave out. The table schema_info
 * holds readable_from, the oldest schema whose cdm may read and write the file; a step that
 * an older cdm would misread or miswrite sets it to its own number, in its own SQL (see
 * READABLE_FROM), as FreeBSD's pkg keeps a database of the same major usable.
 *
 * The store's index. Its generations and attachments tables are the user's state since
 * that moved to its own file (state_migrations): a store index still makes them, empty,
 * and the first open of an index with rows there moves them (db_state.c).
 */
/* The start of a step that an older cdm cannot use: from step n on, only a cdm that knows
 * step n may open the file. */
#define READABLE_FROM(n)                                                                           \
    "CREATE TABLE IF NOT EXISTS schema_info (name TEXT PRIMARY KEY, value INTEGER NOT NULL);"      \
    "INSERT OR REPLACE INTO schema_info VALUES ('readable_from', " #n ");"

/* An attachment's columns, the same in the index (before the split) and in the state. */
#define ATTACHMENTS_COLUMNS                                                                        \
    "(id INTEGER PRIMARY KEY, venv TEXT NOT NULL, folder TEXT NOT NULL, project TEXT NOT "         \
    "NULL, target TEXT NOT NULL, original TEXT NOT NULL, install_id TEXT NOT NULL, wheel TEXT "    \
    "NOT NULL, time INTEGER NOT NULL, state TEXT NOT NULL)"

static const char *const index_migrations[] = {
    /* 1: installs, their files, and each project's link history */
    "CREATE TABLE installs ("
    "  id TEXT PRIMARY KEY,"
    "  version TEXT NOT NULL,"
    "  cuda INTEGER NOT NULL,"
    "  platform TEXT NOT NULL,"
    "  layout TEXT NOT NULL,"
    "  bin_dir TEXT NOT NULL,"
    "  lib_dir TEXT NOT NULL,"
    "  include_dir TEXT NOT NULL,"
    "  archive_name TEXT NOT NULL,"
    "  archive_size INTEGER NOT NULL,"
    "  sha256 TEXT NOT NULL,"
    "  official INTEGER NOT NULL,"
    "  installed_at INTEGER NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  state TEXT NOT NULL DEFAULT 'ok'"
    ");"
    "CREATE TABLE files ("
    "  install_id TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,"
    "  path TEXT NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  sha256 TEXT,"
    "  link_target TEXT,"
    "  PRIMARY KEY (install_id, path)"
    ") WITHOUT ROWID;"
    /* No foreign key on install_id: history outlives a removed version. */
    "CREATE TABLE generations ("
    "  project TEXT NOT NULL,"
    "  generation INTEGER NOT NULL,"
    "  install_id TEXT,"
    "  action TEXT NOT NULL,"
    "  link_name TEXT NOT NULL,"
    "  time INTEGER NOT NULL,"
    "  PRIMARY KEY (project, generation)"
    ");"
    "CREATE INDEX generations_install ON generations(install_id);",
    /* 2: a link change is recorded "pending" before the link is switched and "ok" after, so
     * the next writer can tell a crash in between from a hand-edited link */
    "ALTER TABLE generations ADD COLUMN state TEXT NOT NULL DEFAULT 'ok';",
    /* 3: a file's permission bits as installed, for cdm verify (NULL: installed before, or
     * on a system without them) */
    "ALTER TABLE files ADD COLUMN mode INTEGER;",
    /* 4: every writer looks for pending link changes first; without an index that read
     * goes through the whole history (10,000 projects: most of a link switch's time) */
    "CREATE INDEX IF NOT EXISTS generations_pending ON generations(project, generation) "
    "WHERE state = 'pending';",
    /* 5: Python environments whose cuDNN wheel folder cdm attach replaced with a link (the
     * original moved aside to `original`); state attaching, attached, detaching, detached.
     * IF NOT EXISTS, so that an index set back to an older user_version migrates again */
    "CREATE TABLE IF NOT EXISTS attachments " ATTACHMENTS_COLUMNS ";"
    "CREATE INDEX IF NOT EXISTS attachments_folder ON attachments(folder);",
    /* 6: cdm deploy: an install's files copied over a CUDA toolkit's. Each file it places
     * is recorded, with what was there before (nothing, a file kept in <root>/.deployed by
     * its SHA-256, or a link's target), before anything is touched; state deploying,
     * deployed, undoing */
    "CREATE TABLE IF NOT EXISTS deploys ("
    "  id INTEGER PRIMARY KEY,"
    "  toolkit TEXT NOT NULL,"
    "  install_id TEXT NOT NULL,"
    "  toolkit_version TEXT NOT NULL,"
    "  time INTEGER NOT NULL,"
    "  state TEXT NOT NULL"
    ");"
    "CREATE TABLE IF NOT EXISTS deploy_files ("
    "  deploy_id INTEGER NOT NULL REFERENCES deploys(id) ON DELETE CASCADE,"
    "  path TEXT NOT NULL,"
    "  before_kind TEXT NOT NULL,"
    "  before_sha256 TEXT,"
    "  before_link TEXT,"
    "  before_mode INTEGER,"
    "  PRIMARY KEY (deploy_id, path)"
    ");",
    /* 7: every command that opens the store asks whether an install is unsettled; with 1,000
     * installs, reading them all was most of a link switch's instructions */
    "CREATE INDEX IF NOT EXISTS installs_unsettled ON installs(id) WHERE state <> 'ok';",
    /* 8: the rule of readable_from starts here: no cdm before this one reads a newer
     * schema at all */
    READABLE_FROM(8),
    /* 9: the kind of file an install came from (archive: NVIDIA's redist archive; wheel:
     * NVIDIA's nvidia-cudnn-cuNN wheel), beside its row: an install an older cdm records
     * has none, and reads as an archive's */
    "CREATE TABLE IF NOT EXISTS install_sources (id TEXT PRIMARY KEY, kind TEXT NOT NULL);",
    /* 10: a package of a version that comes as several (NVIDIA's Debian packages), given
     * without the one that completes the install: its file's path and hash (db_parts.c) */
    "CREATE TABLE IF NOT EXISTS install_parts (id TEXT NOT NULL, package TEXT NOT NULL, "
    "path TEXT NOT NULL, sha256 TEXT NOT NULL, time INTEGER NOT NULL, PRIMARY KEY (id, package));",
    /* 11: NVIDIA's licence accepted for an install, on record (db_license.h); an older cdm
     * that removes the install leaves the row, which only says the licence was accepted */
    "CREATE TABLE IF NOT EXISTS install_licenses (id TEXT PRIMARY KEY, license TEXT NOT NULL, "
    "how TEXT NOT NULL, time INTEGER NOT NULL);",
    /* 12: an install looks for identical files of the others by hash, to store each once
     * (install/dedup.c) */
    "CREATE INDEX IF NOT EXISTS files_sha256 ON files(sha256) WHERE sha256 IS NOT NULL;",
};

/*
 * The user's state: one per user, beside no store, so that one store may serve many users
 * (a read-only shared store) and a user may use several stores. A generation records the
 * store whose install it links (store, the root as given), so that "who uses this
 * install" counts only links into this store.
 */
static const char *const state_migrations[] = {
    /* 1: the history of each project's link, the attached Python environments (as the
     * index had them), and the sources a move of history from an index is under way from */
    "CREATE TABLE generations ("
    "  project TEXT NOT NULL,"
    "  generation INTEGER NOT NULL,"
    "  install_id TEXT,"
    "  action TEXT NOT NULL,"
    "  link_name TEXT NOT NULL,"
    "  time INTEGER NOT NULL,"
    "  state TEXT NOT NULL DEFAULT 'ok',"
    "  store TEXT,"
    "  PRIMARY KEY (project, generation)"
    ");"
    "CREATE INDEX generations_install ON generations(install_id);"
    "CREATE INDEX generations_pending ON generations(project, generation) "
    "WHERE state = 'pending';"
    "CREATE TABLE attachments " ATTACHMENTS_COLUMNS ";"
    "CREATE INDEX attachments_folder ON attachments(folder);"
    "CREATE TABLE moving (source TEXT PRIMARY KEY, time INTEGER NOT NULL);",
    /* 2: the CUDA toolkit a link change recorded with the project (its version and folder,
     * links resolved) and the view in the generation's store its link then points to (NULL
     * when none could be made); a generation without a row has no toolkit */
    "CREATE TABLE IF NOT EXISTS generation_toolkits ("
    "  project TEXT NOT NULL,"
    "  generation INTEGER NOT NULL,"
    "  toolkit_version TEXT NOT NULL,"
    "  toolkit TEXT NOT NULL,"
    "  view TEXT,"
    "  PRIMARY KEY (project, generation)"
    ");",
    /* 3: as the index's step 8 */
    READABLE_FROM(3),
    /* 4: why a generation has no link although it names an install (no kind of link can be
     * made in the project's folder); NULL when it has one. An older cdm leaves it NULL and
     * sees such a project as one whose link was removed by hand. */
    "ALTER TABLE generations ADD COLUMN no_link TEXT;",
};

struct schema {
    const char *const *steps;
    int count;
};

static const struct schema index_schema = {index_migrations, (int)CDM_ARRAY_LEN(index_migrations)};
static const struct schema state_schema = {state_migrations, (int)CDM_ARRAY_LEN(state_migrations)};

/* What a connection is, in messages. */
static const char *conn_name(const cdm_ctx *ctx, sqlite3 *db)
{
    return db && db == ctx->state ? "state" : "index";
}

int db_fail_on(cdm_ctx *ctx, sqlite3 *db, const char *what)
{
    return cdm_error_set(ctx, CDM_EDB, "%s '%s': %s: %s", conn_name(ctx, db),
                         db ? sqlite3_db_filename(db, "main") : "?", what,
                         db ? sqlite3_errmsg(db) : "not open");
}

int db_fail(cdm_ctx *ctx, const char *what)
{
    return db_fail_on(ctx, ctx->db, what);
}

int db_exec_on(cdm_ctx *ctx, sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
        return CDM_OK;
    int rc = cdm_error_set(ctx, CDM_EDB, "%s '%s': %s", conn_name(ctx, db),
                           sqlite3_db_filename(db, "main"), err ? err : "failed");
    sqlite3_free(err);
    return rc;
}

static int db_exec(cdm_ctx *ctx, const char *sql)
{
    return db_exec_on(ctx, ctx->db, sql);
}

static int user_version(cdm_ctx *ctx, sqlite3 *db, int *version)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return db_fail_on(ctx, db, "cannot read its version");
    int rc =
        sqlite3_step(st) == SQLITE_ROW ? CDM_OK : db_fail_on(ctx, db, "cannot read its version");
    *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc;
}

/* The file's readable_from (see the migrations); version itself when it has none. */
static int readable_from(sqlite3 *db, int version)
{
    sqlite3_stmt *st = NULL;
    int from = version;
    if (sqlite3_prepare_v2(db, "SELECT value FROM schema_info WHERE name = 'readable_from'", -1,
                           &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
        from = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return from;
}

/* Whether cdm may use the file as it is, read only (a file it refuses is left exactly as it
 * was: no journal switched): its schema, which *version gets. */
static int schema_check(cdm_ctx *ctx, sqlite3 *db, const struct schema *schema, bool read_only,
                        int *version)
{
    int rc = user_version(ctx, db, version);
    if (rc)
        return rc;
    const char *name = conn_name(ctx, db), *path = sqlite3_db_filename(db, "main");
    bool tables = false;
    if (*version == 0 &&
        (rc = db_exists(ctx, db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                        &tables)))
        return rc;
    if (tables) /* schema 0 is a file cdm has not written yet: any table is someone else's */
        return cdm_error_set(ctx, CDM_EDB,
                             "%s '%s' is an SQLite database cdm did not make (it has tables and "
                             "no schema of cdm's); it was left as it is: move it away, or give "
                             "cdm another store ([store] root, --root)",
                             name, path);
    if (*version > schema->count) {
        int from = readable_from(db, *version);
        if (from > schema->count)
            return cdm_error_set(ctx, CDM_EDB,
                                 "%s '%s' was written by a newer cdm (schema %d, which a cdm "
                                 "of schema %d or later can use; this one knows %d); upgrade "
                                 "cdm",
                                 name, path, *version, from, schema->count);
        return CDM_OK; /* what the newer steps added is left as it is */
    }
    if (read_only && *version < schema->count)
        return cdm_error_set(ctx, CDM_EDB,
                             "%s '%s' was written by an older cdm (schema %d, this one needs "
                             "%d) and is read-only here; run this cdm once where it may write "
                             "the store (e.g. 'cdm gc' as the store's owner)",
                             name, path, *version, schema->count);
    return CDM_OK;
}

/* The steps the file lacks, after schema_check accepted it. */
static int migrate(cdm_ctx *ctx, sqlite3 *db, const struct schema *schema, int version)
{
    int rc = CDM_OK;
    for (int step = version; step < schema->count; step++) {
        if ((rc = db_exec_on(ctx, db, "BEGIN IMMEDIATE")))
            return rc;
        char pragma[64];
        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", step + 1);
        if ((rc = db_exec_on(ctx, db, schema->steps[step])) || (rc = db_exec_on(ctx, db, pragma)) ||
            (rc = db_exec_on(ctx, db, "COMMIT"))) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
    }
    return CDM_OK;
}

/* "file:PATH?mode=ro[&immutable=1]", the path percent-encoded (SQLite decodes it back to
 * the bytes given, so Windows' drive letters and backslashes pass as they are). */
static char *ro_uri(const char *path, bool immutable)
{
    struct strbuf uri = STRBUF_INIT;
    sb_add(&uri, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            sb_addc(&uri, (char)*p);
        else
            sb_addf(&uri, "%%%02X", *p);
    }
    sb_add(&uri, immutable ? "?mode=ro&immutable=1" : "?mode=ro");
    return sb_detach(&uri);
}

/* Each connection is used by one thread only (the install's threads never touch SQLite),
 * so SQLite need not lock a connection around every call: without it `cdm list` with 10,000
 * projects runs 5 M fewer instructions. Must come before SQLite's first use. */
static void db_configure_once(void)
{
    static bool done;
    if (!done) {
        done = true;
        sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); /* no statistics: no lock per allocation */
    }
}

/* The journal of a connection that may write. A write-ahead log lets readers (activate,
 * list) run while an install writes; but SQLite says it does not work over a network file
 * system (its -shm index is memory shared on one machine only, https://www.sqlite.org/wal.html),
 * and shared stores and home folders live on NFS and Lustre, so there the rollback journal is
 * kept ([store] journal = auto), which is as safe as the file system's locks. The mode is
 * stored in the file, so it is checked at every open that may write: an index moved to a
 * network file system, or a changed config, is converted by the next such open. */
static int keep_journal(cdm_ctx *ctx, sqlite3 *db, const char *path)
{
    if (!strcmp(path, ":memory:"))
        return CDM_OK;
    /* the file system is asked only when the config leaves it to cdm */
    char kind[64] = "by [store] journal";
    bool wal =
        ctx->config.journal == JOURNAL_WAL ||
        (ctx->config.journal == JOURNAL_AUTO && !fs_volume_is_network(path, kind, sizeof(kind)));
    /* Kept WAL files, or none left behind when the mode changes to a rollback journal. */
    int persist = wal;
    sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK)
        return db_fail_on(ctx, db, "cannot read its journal mode");
    bool is_wal =
        sqlite3_step(st) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    if (is_wal == wal)
        return CDM_OK;
    /* Leaving WAL needs the file to itself: another cdm reading it keeps it in WAL until a
     * later open, which is no worse than before. */
    if (sqlite3_exec(db, wal ? "PRAGMA journal_mode = WAL" : "PRAGMA journal_mode = DELETE", NULL,
                     NULL, NULL) != SQLITE_OK &&
        !wal)
        cdm_warn(ctx,
                 "%s '%s' is on a network file system (%s) but stays in write-ahead-log mode for "
                 "now: another cdm has it open (%s); it changes to a rollback journal at a later "
                 "run",
                 conn_name(ctx, db), path, kind, sqlite3_errmsg(db));
    return CDM_OK;
}

static int open_conn(cdm_ctx *ctx, sqlite3 **out, const char *path, enum db_mode mode,
                     const struct schema *schema)
{
    db_configure_once();
    bool read_only = mode != DB_READ_WRITE;
    char *uri = read_only ? ro_uri(path, mode == DB_IMMUTABLE) : NULL;
    int flags = read_only ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
                          : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    sqlite3 *db = NULL;
    int rc = CDM_OK;
    if (sqlite3_open_v2(uri ? uri : path, &db, flags, NULL) != SQLITE_OK) {
        rc = cdm_error_set(ctx, CDM_EDB, "cannot open %s '%s': %s",
                           schema == &state_schema ? "state" : "index", path,
                           db ? sqlite3_errmsg(db) : "out of memory");
        goto out;
    }
    *out = db; /* from here on, messages name it */
    sqlite3_busy_timeout(db, 10000);
    /* Opened for writing but the file or its file system is read-only (a shared store):
     * read it as it is. */
    read_only |= sqlite3_db_readonly(db, "main") == 1;
    if (!read_only) {
        /* The journal: see keep_journal. The -wal/-shm files of a write-ahead log are kept
         * between runs, so that a reader (a prompt hook's activate) neither recreates nor
         * deletes them.
         * synchronous = FULL: a commit is on disk when it returns. The recovery of installs
         * and links rests on a "pending" record that is durable before the files change;
         * under NORMAL a power cut could keep the change and lose the record (about 0.5 ms
         * a commit, tests/bench/link_switch.sh). journal_size_limit = 0: the last
         * connection's checkpoint at close also empties the kept WAL file. Without it the
         * WAL keeps its checkpointed frames, every later open reads them all back (its
         * wal-index is rebuilt from the file) and its close writes them again: a prompt
         * hook's activate after one large write cost 500 page writes and 6 fdatasyncs. */
        rc = db_exec_on(ctx, db,
                        "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; "
                        "PRAGMA journal_size_limit = 0;");
    }
    /* the schema first: a file cdm refuses keeps its journal mode (no -wal beside it) */
    int version = 0;
    if (!rc)
        rc = schema_check(ctx, db, schema, read_only, &version);
    if (!rc && !read_only)
        rc = keep_journal(ctx, db, path);
    if (!rc)
        rc = migrate(ctx, db, schema, version);
out:
    if (rc) {
        *out = NULL;
        sqlite3_close_v2(db);
    }
    free(uri);
    return rc;
}

int db_open(cdm_ctx *ctx, const char *path, enum db_mode mode)
{
    return ctx->db ? CDM_OK : open_conn(ctx, &ctx->db, path, mode, &index_schema);
}

int db_state_connect(cdm_ctx *ctx, const char *path)
{
    return ctx->state ? CDM_OK : open_conn(ctx, &ctx->state, path, DB_READ_WRITE, &state_schema);
}

bool db_read_only(cdm_ctx *ctx)
{
    return ctx->db && sqlite3_db_readonly(ctx->db, "main") == 1;
}

bool db_on_file(cdm_ctx *ctx)
{
    const char *name = ctx->db ? sqlite3_db_filename(ctx->db, "main") : NULL;
    return name && *name && !db_read_only(ctx);
}

void db_close(cdm_ctx *ctx)
{
    if (ctx->db) {
        sqlite3_close_v2(ctx->db);
        ctx->db = NULL;
    }
    if (ctx->state) {
        sqlite3_close_v2(ctx->state);
        ctx->state = NULL;
    }
}

int db_begin(cdm_ctx *ctx)
{
    return db_exec(ctx, "BEGIN IMMEDIATE");
}

int db_commit(cdm_ctx *ctx)
{
    return db_exec(ctx, "COMMIT");
}

void db_rollback(cdm_ctx *ctx)
{
    if (ctx->db && !sqlite3_get_autocommit(ctx->db))
        sqlite3_exec(ctx->db, "ROLLBACK", NULL, NULL, NULL);
    if (ctx->state && !sqlite3_get_autocommit(ctx->state))
        sqlite3_exec(ctx->state, "ROLLBACK", NULL, NULL, NULL);
}

int db_prepare_on(cdm_ctx *ctx, sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
        return CDM_OK;
    return db_fail_on(ctx, db, "cannot prepare a query");
}

int db_prepare(cdm_ctx *ctx, const char *sql, sqlite3_stmt **st)
{
    return db_prepare_on(ctx, ctx->db, sql, st);
}

int db_prepare_key_on(cdm_ctx *ctx, sqlite3 *db, const char *sql, const char *key,
                      sqlite3_stmt **st)
{
    int rc = db_prepare_on(ctx, db, sql, st);
    if (!rc)
        sqlite3_bind_text(*st, 1, key, -1, SQLITE_STATIC);
    return rc;
}

int db_prepare_key(cdm_ctx *ctx, const char *sql, const char *key, sqlite3_stmt **st)
{
    return db_prepare_key_on(ctx, ctx->db, sql, key, st);
}

int db_run(cdm_ctx *ctx, sqlite3_stmt *st, const char *what)
{
    int rc =
        sqlite3_step(st) == SQLITE_DONE ? CDM_OK : db_fail_on(ctx, sqlite3_db_handle(st), what);
    sqlite3_finalize(st);
    return rc;
}

int db_work_pending(cdm_ctx *ctx, unsigned protocols, bool *pending)
{
    /* Each protocol's journal, as the index and the state keep them (recover.c). */
    static const struct {
        unsigned protocol;
        bool state;
        const char *sql;
    } journals[] = {
        {RECOVER_INSTALLS, false, "SELECT EXISTS (SELECT 1 FROM installs WHERE state <> 'ok')"},
        {RECOVER_DEPLOYS, false, "SELECT EXISTS (SELECT 1 FROM deploys WHERE state <> 'deployed')"},
        /* 'pending' is the only state besides 'ok'; so written, the partial index
         * generations_pending answers without reading the whole history. */
        {RECOVER_LINKS, true, "SELECT EXISTS (SELECT 1 FROM generations WHERE state = 'pending')"},
        {RECOVER_ATTACH, true,
         "SELECT EXISTS (SELECT 1 FROM attachments WHERE state IN ('attaching', 'detaching'))"},
    };
    *pending = false;
    int rc = CDM_OK;
    for (size_t i = 0; i < CDM_ARRAY_LEN(journals) && !rc && !*pending; i++) {
        sqlite3 *db = journals[i].state ? ctx->state : ctx->db;
        if ((protocols & journals[i].protocol) && db)
            rc = db_exists(ctx, db, journals[i].sql, pending);
    }
    return rc;
}

int db_exists(cdm_ctx *ctx, sqlite3 *db, const char *sql, bool *yes)
{
    *yes = false;
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_on(ctx, db, sql, &st);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *yes = sqlite3_column_int(st, 0) != 0;
    else
        rc = db_fail_on(ctx, db, "cannot read it");
    sqlite3_finalize(st);
    return rc;
}
