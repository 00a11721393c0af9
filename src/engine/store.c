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

/* Records of project folders that no longer exist: the history stays, and a "gone"
 * generation says the project no longer uses anything. */
static int drop_gone(cdm_ctx *ctx, unsigned *dropped)
{
    struct db_generation_ref *v = NULL;
    size_t n = 0;
    int rc = db_generation_current_links(ctx, &v, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!cdm_project_gone(v[i].project))
            continue;
        rc = db_generation_add(ctx, v[i].project, NULL, "gone", v[i].link_name, "ok", NULL);
        if (!rc)
            (*dropped)++;
    }
    db_generation_refs_free(v, n);
    return rc;
}

int cdm_gc(cdm_ctx *ctx, unsigned *removed)
{
    *removed = 0;
    ctx->recovered = true; /* gc recovers below itself, to count what it did */
    int rc = store_open(ctx, true);
    if (rc || (rc = recover_interrupted(ctx, removed)))
        return rc;
    return drop_gone(ctx, removed);
}
