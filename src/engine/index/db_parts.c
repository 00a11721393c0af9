/* The install_parts table (db_parts.h). */
#include "db_parts.h"

#include <string.h>
#include <time.h>

int db_part_put(cdm_ctx *ctx, const char *id, const struct db_part *part)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx,
                            "INSERT OR REPLACE INTO install_parts (id, package, path, sha256, "
                            "time) VALUES (?1, ?2, ?3, ?4, ?5)",
                            id, &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 2, part->package, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, part->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, part->sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)time(NULL));
    return db_run(ctx, st, "cannot keep a package of an install");
}

static int read_part(cdm_ctx *ctx, sqlite3_stmt *st, void *elem)
{
    struct db_part *p = elem;
    memset(p, 0, sizeof(*p));
    if (!db_column_text(st, 0, p->package, sizeof(p->package)) ||
        !db_column_text(st, 1, p->path, sizeof(p->path)) ||
        !db_column_text(st, 2, p->sha256, sizeof(p->sha256)))
        return cdm_error_set(ctx, CDM_EDB,
                             "index '%s': a kept package's record has a value too long for "
                             "cdm; check it with 'cdm doctor'",
                             sqlite3_db_filename(ctx->db, "main"));
    return CDM_OK;
}

int db_parts_of(cdm_ctx *ctx, const char *id, struct db_part **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx,
                            "SELECT package, path, sha256 FROM install_parts WHERE id = ?1 "
                            "ORDER BY time, package",
                            id, &st);
    if (rc)
        return rc;
    return db_collect(ctx, st, sizeof(**out), read_part, "cannot read the kept packages",
                      (void **)out, count);
}

int db_parts_drop(cdm_ctx *ctx, const char *id, const char *package)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx,
                            package ? "DELETE FROM install_parts WHERE id = ?1 AND package = ?2"
                                    : "DELETE FROM install_parts WHERE id = ?1",
                            id, &st);
    if (rc)
        return rc;
    if (package)
        sqlite3_bind_text(st, 2, package, -1, SQLITE_STATIC);
    return db_run(ctx, st, "cannot forget a kept package");
}
