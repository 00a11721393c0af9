/* The files table: what an install put in its folder, for cdm verify. */
#include "db.h"

int db_files_add(cdm_ctx *ctx, const char *install_id, const struct db_file *files, size_t n)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "INSERT INTO files (install_id, path, size, sha256, link_target, mode) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        &st);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_text(st, 1, install_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, files[i].path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)files[i].size);
        db_bind_text_or_null(st, 4, files[i].sha256);
        db_bind_text_or_null(st, 5, files[i].link_target);
        if (files[i].mode >= 0)
            sqlite3_bind_int(st, 6, files[i].mode);
        else
            sqlite3_bind_null(st, 6);
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
    int rc = db_prepare_key(ctx,
                            "SELECT path, size, sha256, link_target, mode FROM files "
                            "WHERE install_id = ?1 ORDER BY path",
                            install_id, &st);
    if (rc)
        return rc;
    int step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_file f = {
            .path = (const char *)sqlite3_column_text(st, 0),
            .size = (unsigned long long)sqlite3_column_int64(st, 1),
            .sha256 = (const char *)sqlite3_column_text(st, 2),
            .link_target = (const char *)sqlite3_column_text(st, 3),
            .mode = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 4),
        };
        rc = fn(arg, &f);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(ctx, "cannot read files");
    sqlite3_finalize(st);
    return rc;
}

/* The parameters of the queries for files like one: ?1 sha256, ?2 size, ?3 the install
 * left out, ?4 the mode (NULL: none recorded). */
static void bind_alike(sqlite3_stmt *st, const char *sha256, unsigned long long size, int mode,
                       const char *exclude_id)
{
    sqlite3_bind_text(st, 1, sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)size);
    sqlite3_bind_text(st, 3, exclude_id, -1, SQLITE_STATIC);
    if (mode >= 0)
        sqlite3_bind_int(st, 4, mode);
    else
        sqlite3_bind_null(st, 4);
}

int db_file_alike(cdm_ctx *ctx, const char *sha256, unsigned long long size, int mode,
                  const char *exclude_id, struct db_file_ref *out)
{
    memset(out, 0, sizeof(*out));
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT f.install_id, f.path FROM files f JOIN installs i ON i.id = "
                        "f.install_id WHERE f.sha256 = ?1 AND f.size = ?2 AND f.install_id <> ?3 "
                        "AND f.link_target IS NULL AND i.state = 'ok' AND "
                        "(f.mode IS ?4) LIMIT 1",
                        &st);
    if (rc)
        return rc;
    bind_alike(st, sha256, size, mode, exclude_id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        if (!db_column_text(st, 0, out->install_id, sizeof(out->install_id)) ||
            !db_column_text(st, 1, out->path, sizeof(out->path)))
            rc = CDM_ENOTFOUND; /* too long for cdm: not a file to share */
    } else {
        rc = step == SQLITE_DONE ? CDM_ENOTFOUND : db_fail(ctx, "cannot read files");
    }
    sqlite3_finalize(st);
    return rc;
}

int db_files_alike_each(cdm_ctx *ctx, const char *sha256, unsigned long long size, int mode,
                        const char *exclude_id, db_file_ref_fn fn, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT install_id, path FROM files WHERE sha256 = ?1 AND size = ?2 AND "
                        "install_id <> ?3 AND link_target IS NULL AND (mode IS ?4)",
                        &st);
    if (rc)
        return rc;
    bind_alike(st, sha256, size, mode, exclude_id);
    int step, stop = 0;
    struct db_file_ref ref;
    while (!stop && (step = sqlite3_step(st)) == SQLITE_ROW)
        if (db_column_text(st, 0, ref.install_id, sizeof(ref.install_id)) &&
            db_column_text(st, 1, ref.path, sizeof(ref.path)))
            stop = fn(arg, &ref);
    if (!stop && step != SQLITE_DONE)
        rc = db_fail(ctx, "cannot read files");
    sqlite3_finalize(st);
    return rc;
}
