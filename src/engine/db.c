/* The index's connection: opening, migrations by PRAGMA user_version, transactions, and
 * the helpers the other db*.c files share. */
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Migrations, applied in order, one transaction each, by PRAGMA user_version.
 * Never edit a step that has shipped: add a new one (tables and columns only grow).
 */
static const char *const migrations[] = {
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
    "CREATE TABLE IF NOT EXISTS attachments ("
    "  id INTEGER PRIMARY KEY,"
    "  venv TEXT NOT NULL,"
    "  folder TEXT NOT NULL,"
    "  project TEXT NOT NULL,"
    "  target TEXT NOT NULL,"
    "  original TEXT NOT NULL,"
    "  install_id TEXT NOT NULL,"
    "  wheel TEXT NOT NULL,"
    "  time INTEGER NOT NULL,"
    "  state TEXT NOT NULL"
    ");"
    "CREATE INDEX IF NOT EXISTS attachments_folder ON attachments(folder);",
};

int db_fail(cdm_ctx *ctx, const char *what)
{
    return cdm_error_set(ctx, CDM_EDB, "index '%s': %s: %s",
                         ctx->db ? sqlite3_db_filename(ctx->db, "main") : "?", what,
                         ctx->db ? sqlite3_errmsg(ctx->db) : "not open");
}

static int db_exec(cdm_ctx *ctx, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(ctx->db, sql, NULL, NULL, &err) == SQLITE_OK)
        return CDM_OK;
    int rc = cdm_error_set(ctx, CDM_EDB, "index '%s': %s", sqlite3_db_filename(ctx->db, "main"),
                           err ? err : "failed");
    sqlite3_free(err);
    return rc;
}

static int user_version(cdm_ctx *ctx, int *version)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ctx->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return db_fail(ctx, "cannot read its version");
    int rc = sqlite3_step(st) == SQLITE_ROW ? CDM_OK : db_fail(ctx, "cannot read its version");
    *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc;
}

static int migrate(cdm_ctx *ctx)
{
    int version = 0;
    int rc = user_version(ctx, &version);
    if (rc)
        return rc;
    int latest = (int)CDM_ARRAY_LEN(migrations);
    if (version > latest)
        return cdm_error_set(
            ctx, CDM_EDB,
            "index '%s' was written by a newer cdm (schema %d, this one knows %d); "
            "upgrade cdm",
            sqlite3_db_filename(ctx->db, "main"), version, latest);
    for (int step = version; step < latest; step++) {
        if ((rc = db_begin(ctx)))
            return rc;
        char pragma[64];
        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", step + 1);
        if ((rc = db_exec(ctx, migrations[step])) || (rc = db_exec(ctx, pragma)) ||
            (rc = db_commit(ctx))) {
            db_rollback(ctx);
            return rc;
        }
    }
    return CDM_OK;
}

int db_open(cdm_ctx *ctx, const char *path)
{
    if (ctx->db)
        return CDM_OK;
    bool fresh = fs_kind(path) != FS_FILE; /* also true for ":memory:" */
    if (sqlite3_open_v2(path, &ctx->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        int rc = cdm_error_set(ctx, CDM_EDB, "cannot open index '%s': %s", path,
                               ctx->db ? sqlite3_errmsg(ctx->db) : "out of memory");
        db_close(ctx);
        return rc;
    }
    sqlite3_busy_timeout(ctx->db, 10000);
    /* WAL lets readers (activate, list) run while an install writes. The mode is stored in
     * the file, so it is set once; and the -wal/-shm files are kept between runs, so that a
     * reader (a prompt hook's activate) neither recreates nor deletes them each time. */
    int persist = 1;
    sqlite3_file_control(ctx->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    int rc = db_exec(ctx, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;");
    if (!rc && fresh)
        rc = db_exec(ctx, "PRAGMA journal_mode = WAL;");
    if (!rc)
        rc = migrate(ctx);
    if (rc)
        db_close(ctx);
    return rc;
}

int db_open_read(cdm_ctx *ctx)
{
    if (ctx->db)
        return CDM_OK;
    char *path = store_index_path(ctx);
    int rc = db_open(ctx, fs_kind(path) == FS_FILE ? path : ":memory:");
    free(path);
    return rc;
}

void db_close(cdm_ctx *ctx)
{
    if (ctx->db) {
        sqlite3_close_v2(ctx->db);
        ctx->db = NULL;
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
}

int db_prepare(cdm_ctx *ctx, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(ctx->db, sql, -1, st, NULL) == SQLITE_OK)
        return CDM_OK;
    return db_fail(ctx, "cannot prepare a query");
}

int db_prepare_key(cdm_ctx *ctx, const char *sql, const char *key, sqlite3_stmt **st)
{
    int rc = db_prepare(ctx, sql, st);
    if (!rc)
        sqlite3_bind_text(*st, 1, key, -1, SQLITE_STATIC);
    return rc;
}

int db_run(cdm_ctx *ctx, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? CDM_OK : db_fail(ctx, what);
    sqlite3_finalize(st);
    return rc;
}

void db_bind_text_or_null(sqlite3_stmt *st, int col, const char *text)
{
    if (text && *text)
        sqlite3_bind_text(st, col, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, col);
}

bool db_column_text(sqlite3_stmt *st, int col, char *out, size_t size)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return copy_str(out, size, s ? (const char *)s : "");
}

int db_collect_strings(cdm_ctx *ctx, sqlite3_stmt *st, char ***out)
{
    size_t n = 0, cap = 4;
    char **v = xmalloc(cap * sizeof(*v));
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n + 2 > cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        const unsigned char *s = sqlite3_column_text(st, 0);
        v[n++] = xstrdup(s ? (const char *)s : "");
    }
    v[n] = NULL;
    int rc = CDM_OK;
    if (step != SQLITE_DONE) {
        strv_free(v);
        rc = db_fail(ctx, "cannot read the index");
    } else {
        *out = v;
    }
    sqlite3_finalize(st);
    return rc;
}

int db_collect(cdm_ctx *ctx, sqlite3_stmt *st, size_t size, db_row_fn read, const char *what,
               void **out, size_t *count)
{
    size_t n = 0, cap = 8;
    unsigned char *v = xmalloc(cap * size);
    int rc = CDM_OK, step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap)
            v = xrealloc(v, (cap *= 2) * size);
        rc = read(ctx, st, v + n++ * size);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(ctx, what);
    sqlite3_finalize(st);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *count = n;
    return CDM_OK;
}

int db_integrity(cdm_ctx *ctx, struct strbuf *problems)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "PRAGMA integrity_check(5)", &st);
    if (rc)
        return rc;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *row = (const char *)sqlite3_column_text(st, 0);
        if (row && strcmp(row, "ok"))
            sb_addf(problems, "%s%s", n++ ? "; " : "", row);
    }
    sqlite3_finalize(st);
    return CDM_OK;
}

int db_work_pending(cdm_ctx *ctx, bool *pending)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT EXISTS (SELECT 1 FROM installs WHERE state <> 'ok') OR "
                        "EXISTS (SELECT 1 FROM generations WHERE state <> 'ok')",
                        &st);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *pending = sqlite3_column_int(st, 0) != 0;
    else
        rc = db_fail(ctx, "cannot read the index");
    sqlite3_finalize(st);
    return rc;
}
