/* The deploys and deploy_files tables: cdm deploy's record. */
#include "db_deploy.h"
#include "db.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEPLOY_COLUMNS "id, toolkit, install_id, toolkit_version, time, state"
#define FILE_COLUMNS   "path, before_kind, before_sha256, before_link, before_mode"

/* A text that does not fit its field is an error: a toolkit's path cut short names another
 * folder, which an undo would then write into. */
static int read_deploy(cdm_ctx *ctx, sqlite3_stmt *st, void *elem)
{
    struct db_deploy *d = elem;
    memset(d, 0, sizeof(*d));
    d->id = sqlite3_column_int64(st, 0);
    bool fits = db_column_text(st, 1, d->toolkit, sizeof(d->toolkit));
    fits &= db_column_text(st, 2, d->install_id, sizeof(d->install_id));
    fits &= db_column_text(st, 3, d->toolkit_version, sizeof(d->toolkit_version));
    d->time = sqlite3_column_int64(st, 4);
    fits &= db_column_text(st, 5, d->state, sizeof(d->state));
    return fits ? CDM_OK : db_too_long(ctx, st, "a deploy");
}

static int read_file(cdm_ctx *ctx, sqlite3_stmt *st, void *elem)
{
    struct db_deploy_file *f = elem;
    memset(f, 0, sizeof(*f));
    bool fits = db_column_text(st, 0, f->path, sizeof(f->path));
    fits &= db_column_text(st, 1, f->before_kind, sizeof(f->before_kind));
    fits &= db_column_text(st, 2, f->before_sha256, sizeof(f->before_sha256));
    fits &= db_column_text(st, 3, f->before_link, sizeof(f->before_link));
    f->before_mode = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 4);
    return fits ? CDM_OK : db_too_long(ctx, st, "a deployed file");
}

static int insert_file(cdm_ctx *ctx, long long id, const struct db_deploy_file *f)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "INSERT INTO deploy_files (deploy_id, " FILE_COLUMNS
                        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, f->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, f->before_kind, -1, SQLITE_STATIC);
    db_bind_text_or_null(st, 4, f->before_sha256);
    db_bind_text_or_null(st, 5, f->before_link);
    if (f->before_mode >= 0)
        sqlite3_bind_int(st, 6, f->before_mode);
    return db_run(ctx, st, "cannot record a deployed file");
}

int db_deploy_insert(cdm_ctx *ctx, struct db_deploy *d, const struct db_deploy_file *files,
                     size_t n)
{
    sqlite3_stmt *st = NULL;
    int rc = db_begin(ctx);
    if (rc)
        return rc;
    rc = db_prepare(ctx,
                    "INSERT INTO deploys (toolkit, install_id, toolkit_version, time, state) "
                    "VALUES (?1, ?2, ?3, ?4, ?5)",
                    &st);
    if (rc)
        goto out;
    d->time = (long long)time(NULL);
    sqlite3_bind_text(st, 1, d->toolkit, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, d->install_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, d->toolkit_version, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, d->time);
    sqlite3_bind_text(st, 5, d->state, -1, SQLITE_STATIC);
    if ((rc = db_run(ctx, st, "cannot record a deploy")))
        goto out;
    d->id = sqlite3_last_insert_rowid(ctx->db);
    for (size_t i = 0; !rc && i < n; i++)
        rc = insert_file(ctx, d->id, &files[i]);
out:
    if (rc) {
        db_rollback(ctx);
        return rc;
    }
    return db_commit(ctx);
}

int db_deploy_get(cdm_ctx *ctx, const char *toolkit, struct db_deploy *out)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(
        ctx, "SELECT " DEPLOY_COLUMNS " FROM deploys WHERE toolkit = ?1 ORDER BY id DESC LIMIT 1",
        toolkit, &st);
    if (rc)
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_deploy(ctx, st, out);
    else
        rc = step == SQLITE_DONE ? CDM_ENOTFOUND : db_fail(ctx, "cannot read a deploy");
    sqlite3_finalize(st);
    return rc;
}

int db_deploy_unsettled(cdm_ctx *ctx, struct db_deploy **out, size_t *count)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(
        ctx, "SELECT " DEPLOY_COLUMNS " FROM deploys WHERE state <> 'deployed' ORDER BY id", &st);
    if (rc)
        return rc;
    return db_collect(ctx, st, sizeof(**out), read_deploy, "cannot read the deploys", (void **)out,
                      count);
}

int db_deploy_files(cdm_ctx *ctx, long long id, struct db_deploy_file **out, size_t *count)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT " FILE_COLUMNS " FROM deploy_files WHERE deploy_id = ?1 "
                        "ORDER BY path",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    return db_collect(ctx, st, sizeof(**out), read_file, "cannot read a deploy's files",
                      (void **)out, count);
}

int db_deploy_set_state(cdm_ctx *ctx, long long id, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "UPDATE deploys SET state = ?2 WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
    return db_run(ctx, st, "cannot update a deploy");
}

int db_deploy_delete(cdm_ctx *ctx, long long id)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "DELETE FROM deploys WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    return db_run(ctx, st, "cannot delete a deploy");
}

int db_deploy_keeps(cdm_ctx *ctx, const char *sha256, bool *kept)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(
        ctx, "SELECT EXISTS (SELECT 1 FROM deploy_files WHERE before_sha256 = ?1)", sha256, &st);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *kept = sqlite3_column_int(st, 0) != 0;
    else
        rc = db_fail(ctx, "cannot read the deploys");
    sqlite3_finalize(st);
    return rc;
}

int db_deploy_install_ids(cdm_ctx *ctx, char ***ids)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "SELECT DISTINCT install_id FROM deploys ORDER BY install_id", &st);
    return rc ? rc : db_collect_strings(ctx, st, ids);
}
