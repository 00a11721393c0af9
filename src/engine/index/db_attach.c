/* The attachments table: Python environments attached to projects. */
#include "db_attach.h"
#include "db.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ATTACH_COLUMNS "id, venv, folder, project, target, original, install_id, wheel, time, state"

/* The row into a; an error when a text does not fit its field (a path cut short would name
 * another folder, which detach would then move files into). */
static int read_row(cdm_ctx *ctx, sqlite3_stmt *st, struct db_attachment *a)
{
    memset(a, 0, sizeof(*a));
    a->id = sqlite3_column_int64(st, 0);
    bool fits = db_column_text(st, 1, a->venv, sizeof(a->venv));
    fits &= db_column_text(st, 2, a->folder, sizeof(a->folder));
    fits &= db_column_text(st, 3, a->project, sizeof(a->project));
    fits &= db_column_text(st, 4, a->target, sizeof(a->target));
    fits &= db_column_text(st, 5, a->original, sizeof(a->original));
    fits &= db_column_text(st, 6, a->install_id, sizeof(a->install_id));
    fits &= db_column_text(st, 7, a->wheel, sizeof(a->wheel));
    a->time = sqlite3_column_int64(st, 8);
    fits &= db_column_text(st, 9, a->state, sizeof(a->state));
    return fits ? CDM_OK : db_too_long(ctx, st, "an attachment");
}

int db_attach_insert(cdm_ctx *ctx, struct db_attachment *a)
{
    sqlite3_stmt *st = NULL;
    int rc =
        db_prepare_on(ctx, ctx->state,
                      "INSERT INTO attachments (venv, folder, project, target, original, "
                      "install_id, wheel, time, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                      "?9)",
                      &st);
    if (rc)
        return rc;
    a->time = (long long)time(NULL);
    const char *text[] = {a->venv,     a->folder,     a->project, a->target,
                          a->original, a->install_id, a->wheel};
    for (int i = 0; i < 7; i++)
        sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 8, a->time);
    sqlite3_bind_text(st, 9, a->state, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail_on(ctx, ctx->state, "cannot record an attachment");
    else
        a->id = sqlite3_last_insert_rowid(ctx->state);
    sqlite3_finalize(st);
    return rc;
}

/* One statement on one row: state NULL deletes it. */
static int settle(cdm_ctx *ctx, long long id, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_on(ctx, ctx->state,
                           state ? "UPDATE attachments SET state = ?2 WHERE id = ?1"
                                 : "DELETE FROM attachments WHERE id = ?1",
                           &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if (state)
        sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail_on(ctx, ctx->state, "cannot update an attachment");
    sqlite3_finalize(st);
    return rc;
}

int db_attach_set_state(cdm_ctx *ctx, long long id, const char *state)
{
    return settle(ctx, id, state);
}

int db_attach_delete(cdm_ctx *ctx, long long id)
{
    return settle(ctx, id, NULL);
}

int db_attach_set_original(cdm_ctx *ctx, long long id, const char *original)
{
    sqlite3_stmt *st = NULL;
    int rc =
        db_prepare_on(ctx, ctx->state, "UPDATE attachments SET original = ?2 WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, original, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail_on(ctx, ctx->state, "cannot record where the wheel's folder goes");
    sqlite3_finalize(st);
    return rc;
}

/* The newest record whose column (folder or venv) is key and that is not "detached". */
static int current_by(cdm_ctx *ctx, const char *sql, const char *key, struct db_attachment *out)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state, sql, key, &st);
    if (rc)
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        rc = read_row(ctx, st, out);
    else
        rc = step == SQLITE_DONE ? CDM_ENOTFOUND
                                 : db_fail_on(ctx, ctx->state, "cannot read an attachment");
    sqlite3_finalize(st);
    return rc;
}

int db_attach_current(cdm_ctx *ctx, const char *folder, struct db_attachment *out)
{
    return current_by(ctx,
                      "SELECT " ATTACH_COLUMNS " FROM attachments WHERE folder = ?1 AND "
                      "state <> 'detached' ORDER BY id DESC LIMIT 1",
                      folder, out);
}

int db_attach_current_of_venv(cdm_ctx *ctx, const char *venv, struct db_attachment *out)
{
    return current_by(ctx,
                      "SELECT " ATTACH_COLUMNS " FROM attachments WHERE venv = ?1 AND "
                      "state <> 'detached' ORDER BY id DESC LIMIT 1",
                      venv, out);
}

/* db_collect's reader */
static int collect_row(cdm_ctx *ctx, sqlite3_stmt *st, void *elem)
{
    return read_row(ctx, st, elem);
}

int db_attach_unsettled(cdm_ctx *ctx, struct db_attachment **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_on(ctx, ctx->state,
                           "SELECT " ATTACH_COLUMNS " FROM attachments WHERE state IN "
                           "('attaching', 'detaching') ORDER BY id",
                           &st);
    if (rc)
        return rc;
    return db_collect(ctx, st, sizeof(**out), collect_row, "cannot read the attachments",
                      (void **)out, count);
}

int db_attach_of_project(cdm_ctx *ctx, const char *project, struct db_attachment **out,
                         size_t *count)
{
    *out = NULL;
    *count = 0;
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT " ATTACH_COLUMNS " FROM attachments WHERE project = ?1 "
                               "AND state = 'attached' ORDER BY id",
                               project, &st);
    if (rc)
        return rc;
    return db_collect(ctx, st, sizeof(**out), collect_row, "cannot read the attachments",
                      (void **)out, count);
}

int db_attach_install_ids(cdm_ctx *ctx, char ***ids)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_on(ctx, ctx->state,
                           "SELECT DISTINCT install_id FROM attachments WHERE state != 'detached' "
                           "ORDER BY install_id",
                           &st);
    return rc ? rc : db_collect_strings(ctx, st, ids);
}
