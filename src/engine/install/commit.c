/*
 * An install's commit, all or nothing, shared by every source (install.c's archives, wheels
 * and conda packages, install_folder.c's folders, install_from.c's other store):
 *
 *   the checked tree in .staging/<id>.<pid>.tmp is sealed (no write bits) and synced,
 *   renamed to .staging/<id>.ready, recorded as "pending", any old folder of the id moved
 *   aside (.staging/<id>.old), .ready renamed to <root>/<id>, the record marked "ok", the old
 *   folder deleted.
 *
 * A crash at any point leaves a state that the next writer rolls forward (a pending record
 * with its .ready folder) or cleans up (everything else in .staging), under the store lock
 * (recover.c).
 */
#include "install.h"
#include "store.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>

/* The steps above, after a checked extraction or copy. */
int install_commit(cdm_ctx *ctx, const char *tmp, const struct cdm_install_info *in,
                   const struct db_file *files, size_t file_count)
{
    char *ready = store_staging_path(ctx, in->id, "ready");
    char *old = store_staging_path(ctx, in->id, "old");
    char *final = store_install_path(ctx, in->id);
    char *staging = store_staging_dir(ctx);
    /* No write bits on its folders (its files were made without), then the files' data: a
     * power cut after the rename or the record must not leave empty libraries in a folder
     * the index calls complete. */
    int rc = fs_seal_tree(ctx, tmp);
    if (!rc)
        rc = fs_sync_written(ctx, tmp);
    if (rc)
        goto out;
    fs_crash_point("extracted");
    rc = fs_rename(ctx, tmp, ready);
    if (rc)
        goto out;
    fs_sync_dir(staging);
    if ((rc = db_begin(ctx)))
        goto undo;
    if ((rc = db_install_put(ctx, in, "pending")) ||
        (rc = db_files_add(ctx, in->id, files, file_count)) || (rc = db_commit(ctx))) {
        db_rollback(ctx);
        goto undo;
    }
    /* From here the record is the journal: the next writer finishes a failure (recover.c). */
    fs_crash_point("recorded");
    if (fs_kind(final) != FS_NONE && (rc = store_move_install(ctx, final, old)))
        goto out;
    fs_crash_point("moved-aside");
    if ((rc = store_move_install(ctx, ready, final)))
        goto out;
    fs_sync_dir(ctx->root);
    fs_crash_point("renamed");
    if ((rc = db_install_set_state(ctx, in->id, "ok")))
        goto out;
    if (fs_kind(old) != FS_NONE)
        rc = fs_remove_tree(ctx, old);
    goto out;
undo:
    fs_remove_tree(ctx, ready);
out:
    free(staging);
    free(final);
    free(old);
    free(ready);
    return rc;
}
