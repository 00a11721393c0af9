/* Opening the store (readers, and writers under its lock, after recovery), and cdm gc. */
#include "store.h"
#include "db.h"
#include "recover.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>

static int recover_once(cdm_ctx *ctx)
{
    if (ctx->recovered)
        return CDM_OK;
    unsigned done = 0;
    int rc = recover_interrupted(ctx, &done);
    if (!rc)
        ctx->recovered = true;
    if (done)
        cdm_warn(ctx, "cleaned up %u leftover(s) of interrupted work in '%s'", done, ctx->root);
    return rc;
}

int store_open(cdm_ctx *ctx, bool for_writing)
{
    if (ctx->db && (!for_writing || ctx->lock))
        return CDM_OK;
    if (!for_writing)
        return db_open_read(ctx);
    db_close(ctx); /* opened for reading before: open again under the lock */
    int rc;
    char *db_path = store_index_path(ctx);
    char *staging = store_staging_dir(ctx);
    char *lock_path = store_lock_path(ctx);
    if (!(rc = fs_mkdir_p(ctx, ctx->root)) && !(rc = fs_mkdir(ctx, staging)) &&
        !(rc = fs_lock(ctx, lock_path, &ctx->lock)) && !(rc = db_open(ctx, db_path)))
        rc = recover_once(ctx);
    free(lock_path);
    free(staging);
    free(db_path);
    return rc;
}

/* The record of a project folder that no longer exists: the history stays, and a "gone"
 * generation says the project no longer uses anything. */
static int drop_if_gone(cdm_ctx *ctx, const struct db_generation_ref *g, void *arg)
{
    unsigned *dropped = arg;
    if (!cdm_project_gone(g->project))
        return CDM_OK;
    int rc = db_generation_add(ctx, g->project, NULL, "gone", g->link_name, "ok", NULL);
    if (!rc)
        (*dropped)++;
    return rc;
}

int cdm_gc(cdm_ctx *ctx, unsigned *removed)
{
    *removed = 0;
    ctx->recovered = true; /* gc recovers below itself, to count what it did */
    int rc = store_open(ctx, true);
    if (rc || (rc = recover_interrupted(ctx, removed)))
        return rc;
    return db_generation_each_current_link(ctx, drop_if_gone, removed);
}
