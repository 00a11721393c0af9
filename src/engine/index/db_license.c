/* The install_licenses table (db_license.h). */
#include "db_license.h"

#include <string.h>
#include <time.h>

int db_license_accept(cdm_ctx *ctx, const char *id, const char *license, const char *how)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx,
                            "INSERT OR IGNORE INTO install_licenses (id, license, how, time) "
                            "VALUES (?1, ?2, ?3, ?4)",
                            id, &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 2, license, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, how, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL));
    return db_run(ctx, st, "cannot record the licence accepted for an install");
}

int db_license_get(cdm_ctx *ctx, const char *id, struct db_license *out)
{
    memset(out, 0, sizeof(*out));
    /* a shared store's index that an older cdm made, read without migrating, has no table */
    bool table = false;
    int rc = db_exists(ctx, ctx->db,
                       "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                       "name = 'install_licenses')",
                       &table);
    if (rc || !table)
        return rc ? rc : CDM_ENOTFOUND;
    sqlite3_stmt *st = NULL;
    rc = db_prepare_key(ctx, "SELECT license, how, time FROM install_licenses WHERE id = ?1", id,
                        &st);
    if (rc)
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        if (!db_column_text(st, 0, out->license, sizeof(out->license)) ||
            !db_column_text(st, 1, out->how, sizeof(out->how)))
            rc = db_too_long(ctx, st, "an accepted licence");
        out->time = sqlite3_column_int64(st, 2);
    } else if (step == SQLITE_DONE) {
        rc = CDM_ENOTFOUND;
    } else {
        rc = db_fail(ctx, "cannot read the licence accepted for an install");
    }
    sqlite3_finalize(st);
    return rc;
}

int db_license_drop(cdm_ctx *ctx, const char *id)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx, "DELETE FROM install_licenses WHERE id = ?1", id, &st);
    if (rc)
        return rc;
    return db_run(ctx, st, "cannot forget the licence accepted for an install");
}
