/*
 * The install protocol: an install enters the store, or leaves it, all or nothing. Every
 * source (archives, wheels and packages in install.c, folders in install_folder.c, another
 * store in install_from.c) commits the same way:
 *
 *   the checked tree in .staging/<id>.<pid>.tmp is sealed (no write bits) and synced,
 *   renamed to .staging/<id>.ready, recorded as "pending" with its files, any old folder
 *   of the id moved aside (.staging/<id>.old), .ready renamed to <root>/<id>, the record
 *   marked "ok", the old folder deleted.
 *
 * A remove moves <root>/<id> to .staging/<id>.removing, deletes the record, then the folder.
 *
 * Recovery (the next writer, under the store's lock): a pending record with its .ready
 * folder is rolled forward; one whose folder is in place is marked "ok"; one with neither
 * is dropped. A .removing folder whose record is still there goes back into place (the
 * remove did not happen). Everything else in .staging/ is a leftover, deleted.
 */
#include "journal_install.h"
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

int journal_install_commit(cdm_ctx *ctx, const char *tmp, const struct cdm_install_info *in,
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
    /* From here the record is the journal: the next writer finishes a failure
     * (journal_install_recover). */
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

/* The remove's steps, once nothing uses the install. */
int journal_install_remove(cdm_ctx *ctx, const char *id)
{
    int rc = CDM_OK;
    fs_crash_point("remove-unlinked");
    char *final = store_install_path(ctx, id);
    char *aside = store_staging_path(ctx, id, "removing");
    bool present = fs_kind(final) == FS_DIR;
    if (present)
        rc = store_move_install(ctx, final, aside);
    fs_crash_point("remove-moved");
    if (!rc && !(rc = db_install_delete(ctx, id)) && present) {
        fs_crash_point("remove-recorded");
        rc = fs_remove_tree(ctx, aside);
    }
    free(aside);
    free(final);
    return rc;
}

/* ---- recovery -------------------------------------------------------------------------- */

/* Finish an install whose record says pending: move its .ready folder into place. */
static int roll_forward(cdm_ctx *ctx, const char *id, unsigned *done)
{
    char *ready = store_staging_path(ctx, id, "ready");
    char *old = store_staging_path(ctx, id, "old");
    char *final = store_install_path(ctx, id);
    int rc = CDM_OK;
    if (fs_kind(ready) == FS_DIR) {
        if (fs_kind(final) != FS_NONE) {
            if (!(rc = fs_remove_tree(ctx, old)))
                rc = store_move_install(ctx, final, old);
        }
        if (!rc)
            rc = store_move_install(ctx, ready, final);
        if (!rc) {
            fs_sync_dir(ctx->root);
            rc = db_install_set_state(ctx, id, "ok");
        }
        if (!rc && ctx->options.verbose)
            cdm_note(ctx, "finished the interrupted install of %s", id);
        (*done)++;
    } else if (fs_kind(final) == FS_DIR) {
        rc = db_install_set_state(ctx, id, "ok");
    } else {
        rc = db_install_delete(ctx, id); /* nothing left to finish */
        if (!rc && ctx->options.verbose)
            cdm_note(ctx, "dropped the record of the unfinished install of %s", id);
        (*done)++;
    }
    free(ready);
    free(old);
    free(final);
    return rc;
}

static int clean_staging_entry(cdm_ctx *ctx, const char *staging, const char *name, unsigned *done)
{
    const char *suffix = "";
    char *id = store_staging_id(name, &suffix);
    char *path = path_join(staging, name);
    int rc = CDM_OK;
    if (id && !strcmp(suffix, "removing")) {
        /* A remove that crashed before its record was deleted: put the folder back. */
        struct cdm_install_info in;
        char *final = store_install_path(ctx, id);
        if (db_install_get(ctx, id, &in) == CDM_OK && fs_kind(final) == FS_NONE) {
            rc = store_move_install(ctx, path, final);
            if (!rc && ctx->options.verbose)
                cdm_note(ctx, "put back %s, whose remove was interrupted", id);
            free(final);
            free(path);
            free(id);
            (*done)++;
            return rc;
        }
        free(final);
    }
    rc = fs_remove_tree(ctx, path);
    if (!rc && ctx->options.verbose)
        cdm_note(ctx, "removed '%s'", path);
    (*done)++;
    free(path);
    free(id);
    return rc;
}

int journal_install_recover(cdm_ctx *ctx, unsigned *done)
{
    char **pending = NULL;
    int rc = db_install_pending(ctx, &pending);
    for (char **p = pending; !rc && p && *p; p++)
        rc = roll_forward(ctx, *p, done);
    strv_free(pending);
    if (rc)
        return rc;
    char *staging = store_staging_dir(ctx);
    char **names = NULL;
    rc = store_own_dir(ctx, staging, false); /* never deleting below a link */
    if (!rc)
        rc = fs_list_dir(ctx, staging, &names);
    if (rc == CDM_ENOTFOUND)
        rc = CDM_OK;
    for (char **n = names; !rc && n && *n; n++)
        rc = clean_staging_entry(ctx, staging, *n, done);
    strv_free(names);
    free(staging);
    return rc;
}
