#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "version.h"

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
};

int db_fail(cdm_ctx *ctx, const char *what)
{
    return cdm_error_set(ctx, CDM_EDB, "index '%s': %s: %s",
                         ctx->db ? sqlite3_db_filename(ctx->db, "main") : "?", what,
                         ctx->db ? sqlite3_errmsg(ctx->db) : "not open");
}

int db_exec(cdm_ctx *ctx, const char *sql)
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

void db_column_text(sqlite3_stmt *st, int col, char *out, size_t size)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    copy_str(out, size, s ? (const char *)s : "");
}

#define INSTALL_COLUMNS                                                                            \
    "id, version, cuda, platform, layout, bin_dir, lib_dir, include_dir, archive_name, "           \
    "archive_size, sha256, official, installed_at, size, state"

static void read_install(cdm_ctx *ctx, sqlite3_stmt *st, struct cdm_install_info *in)
{
    memset(in, 0, sizeof(*in));
    db_column_text(st, 0, in->id, sizeof(in->id));
    db_column_text(st, 1, in->version, sizeof(in->version));
    in->cuda = sqlite3_column_int(st, 2);
    db_column_text(st, 3, in->platform, sizeof(in->platform));
    db_column_text(st, 4, in->layout, sizeof(in->layout));
    db_column_text(st, 5, in->bin_dir, sizeof(in->bin_dir));
    db_column_text(st, 6, in->lib_dir, sizeof(in->lib_dir));
    db_column_text(st, 7, in->include_dir, sizeof(in->include_dir));
    db_column_text(st, 8, in->archive_name, sizeof(in->archive_name));
    in->archive_size = (uint64_t)sqlite3_column_int64(st, 9);
    db_column_text(st, 10, in->sha256, sizeof(in->sha256));
    in->official = sqlite3_column_int(st, 11) != 0;
    in->installed_at = sqlite3_column_int64(st, 12);
    in->size = (uint64_t)sqlite3_column_int64(st, 13);
    char *path = store_install_path(ctx, in->id);
    copy_str(in->path, sizeof(in->path), path);
    free(path);
}

int db_install_get(cdm_ctx *ctx, const char *id, struct cdm_install_info *out, char state[16])
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "SELECT " INSTALL_COLUMNS " FROM installs WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        read_install(ctx, st, out);
        if (state)
            db_column_text(st, 14, state, 16);
    } else if (step == SQLITE_DONE) {
        rc = CDM_ENOTFOUND; /* no message: callers decide what absence means */
    } else {
        rc = db_fail(ctx, "cannot read an install");
    }
    sqlite3_finalize(st);
    return rc;
}

int db_install_put(cdm_ctx *ctx, const struct cdm_install_info *in, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_install_delete(ctx, in->id);
    if (rc)
        return rc;
    rc = db_prepare(ctx,
                    "INSERT INTO installs (" INSTALL_COLUMNS ") VALUES "
                    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                    &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, in->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, in->version, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, in->cuda);
    sqlite3_bind_text(st, 4, in->platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, in->layout, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, in->bin_dir, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, in->lib_dir, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, in->include_dir, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, in->archive_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)in->archive_size);
    sqlite3_bind_text(st, 11, in->sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 12, in->official);
    sqlite3_bind_int64(st, 13, in->installed_at);
    sqlite3_bind_int64(st, 14, (sqlite3_int64)in->size);
    sqlite3_bind_text(st, 15, state, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail(ctx, "cannot record an install");
    sqlite3_finalize(st);
    return rc;
}

int db_install_set_state(cdm_ctx *ctx, const char *id, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "UPDATE installs SET state = ?2 WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail(ctx, "cannot update an install");
    sqlite3_finalize(st);
    return rc;
}

int db_install_delete(cdm_ctx *ctx, const char *id)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "DELETE FROM installs WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail(ctx, "cannot delete an install");
    sqlite3_finalize(st);
    return rc;
}

static int compare_installs(const void *a, const void *b)
{
    const struct cdm_install_info *x = a, *y = b;
    struct version vx, vy;
    version_parse(x->version, &vx);
    version_parse(y->version, &vy);
    int c = version_compare(&vx, &vy);
    return c ? c : (x->cuda > y->cuda) - (x->cuda < y->cuda);
}

int db_install_list(cdm_ctx *ctx, struct cdm_install_info **out, size_t *count)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "SELECT " INSTALL_COLUMNS " FROM installs WHERE state = 'ok'", &st);
    if (rc)
        return rc;
    size_t n = 0, cap = 8;
    struct cdm_install_info *v = xmalloc(cap * sizeof(*v));
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        read_install(ctx, st, &v[n++]);
    }
    if (step != SQLITE_DONE) {
        free(v);
        rc = db_fail(ctx, "cannot list installs");
    } else {
        qsort(v, n, sizeof(*v), compare_installs);
        *out = v;
        *count = n;
    }
    sqlite3_finalize(st);
    return rc;
}

static int collect_strings(cdm_ctx *ctx, sqlite3_stmt *st, char ***out)
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
    if (step != SQLITE_DONE) {
        strv_free(v);
        return db_fail(ctx, "cannot read the index");
    }
    *out = v;
    return CDM_OK;
}

int db_install_pending(cdm_ctx *ctx, char ***ids)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "SELECT id FROM installs WHERE state <> 'ok' ORDER BY id", &st);
    if (rc)
        return rc;
    rc = collect_strings(ctx, st, ids);
    sqlite3_finalize(st);
    return rc;
}

int db_files_add(cdm_ctx *ctx, const char *install_id, const struct db_file *files, size_t n)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "INSERT INTO files (install_id, path, size, sha256, link_target) "
                        "VALUES (?1, ?2, ?3, ?4, ?5)",
                        &st);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_text(st, 1, install_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, files[i].path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)files[i].size);
        if (files[i].sha256)
            sqlite3_bind_text(st, 4, files[i].sha256, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        if (files[i].link_target)
            sqlite3_bind_text(st, 5, files[i].link_target, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_fail(ctx, "cannot record a file");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

int db_files_each(cdm_ctx *ctx, const char *install_id, db_file_fn fn, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT path, size, sha256, link_target FROM files "
                        "WHERE install_id = ?1 ORDER BY path",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, install_id, -1, SQLITE_STATIC);
    int step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_file f = {
            .path = (const char *)sqlite3_column_text(st, 0),
            .size = (unsigned long long)sqlite3_column_int64(st, 1),
            .sha256 = (const char *)sqlite3_column_text(st, 2),
            .link_target = (const char *)sqlite3_column_text(st, 3),
        };
        rc = fn(arg, &f);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(ctx, "cannot read files");
    sqlite3_finalize(st);
    return rc;
}

int db_projects_using(cdm_ctx *ctx, const char *install_id, char ***projects)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT g.project FROM generations g WHERE g.install_id = ?1 AND "
                        "g.generation = (SELECT MAX(generation) FROM generations h "
                        "WHERE h.project = g.project AND h.state = 'ok') ORDER BY g.project",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, install_id, -1, SQLITE_STATIC);
    rc = collect_strings(ctx, st, projects);
    sqlite3_finalize(st);
    return rc;
}
