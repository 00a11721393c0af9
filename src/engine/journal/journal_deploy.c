/*
 * The deploy protocol: cuDNN's files placed into a CUDA toolkit (cdm deploy) and taken
 * out again (cdm deploy --undo), recorded in the store's index, under the store's lock:
 *
 *   Deploy keeps each file it will replace in the store (<root>/.deployed/<sha256>; a link
 *   is remembered by its target), records the deploy "deploying" with every file, places
 *   each file by a rename, and marks it "deployed". Undo marks it "undoing", puts every file
 *   back as it was (gone, its kept content, or its link), deletes the record, then the kept
 *   files no other deploy needs.
 *
 * Recovery (the next writer, under the store's lock): a deploy left "deploying" or
 * "undoing" is undone, which is safe to run again after a kill at any point; kept files
 * no deploy records (a kill between keeping and recording) are deleted.
 */
#include "journal_deploy.h"
#include "deploy_files.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <stdlib.h>
#include <string.h>

void deploy_plan_free(struct deploy_plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->from[i]);
    free(p->from);
    free(p->files);
}

/* What is at each target now: kept in the store when a file, remembered when a link. */
static int keep_before(cdm_ctx *ctx, const char *toolkit, struct deploy_plan *p, size_t *replaced)
{
    int rc = CDM_OK;
    for (size_t i = 0; !rc && i < p->n; i++) {
        struct db_deploy_file *f = &p->files[i];
        char *dest = path_join(toolkit, f->path);
        enum fs_kind k = fs_kind(dest);
        char *target = NULL;
        enum link_kind lk;
        if (k == FS_NONE) {
            COPY_STR_ARRAY(f->before_kind, "none");
        } else if (k == FS_LINK) {
            COPY_STR_ARRAY(f->before_kind, "link");
            if (!(rc = link_read(ctx, dest, &lk, &target)) &&
                (lk != LINK_OURS || !copy_str(f->before_link, sizeof(f->before_link), target)))
                rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                                   "cannot deploy: '%s' is a link cdm cannot read back or "
                                   "remake; move it away (nothing was changed)",
                                   dest);
            (*replaced)++;
        } else {
            COPY_STR_ARRAY(f->before_kind, "file");
            f->before_mode = fs_file_mode(dest);
            if (!(rc = deploy_hash(ctx, dest, f->before_sha256)))
                rc = deploy_keep(ctx, dest, f->before_sha256);
            (*replaced)++;
        }
        free(target);
        free(dest);
    }
    return rc;
}

/* Place each file; what each now holds goes into the plan's record first. */
static int place(cdm_ctx *ctx, const char *toolkit, struct deploy_plan *p)
{
    int rc = CDM_OK;
    for (size_t i = 0; !rc && i < p->n; i++) {
        char *dest = path_join(toolkit, p->files[i].path);
        char *target = NULL;
        enum link_kind lk;
        if (fs_kind(p->from[i]) == FS_LINK) {
            if (!(rc = link_read(ctx, p->from[i], &lk, &target)))
                rc = deploy_link(ctx, target, dest);
        } else {
            int mode = fs_file_mode(p->from[i]);
            rc = deploy_copy(ctx, p->from[i], dest, mode > 0 && (mode & 0111), NULL);
        }
        if (!rc && i == 0)
            fs_crash_point("deploy-file");
        free(target);
        free(dest);
    }
    return rc;
}

int journal_deploy(cdm_ctx *ctx, struct db_deploy *d, struct deploy_plan *p, size_t *replaced)
{
    int rc = keep_before(ctx, d->toolkit, p, replaced);
    if (rc)
        return rc;
    fs_crash_point("deploy-kept");
    COPY_STR_ARRAY(d->state, "deploying");
    if ((rc = db_deploy_insert(ctx, d, p->files, p->n)))
        return rc;
    fs_crash_point("deploy-recorded");
    if (!(rc = place(ctx, d->toolkit, p))) {
        fs_sync_dir(d->toolkit);
        return db_deploy_set_state(ctx, d->id, "deployed");
    }
    /* Put back what was placed; the message says what failed. */
    struct saved_error saved = error_save(ctx);
    journal_deploy_undo(ctx, d);
    return error_restore(ctx, &saved);
}

/* ---- undo and recovery ----------------------------------------------------------------- */

/* A kill during a copy leaves <name>.cdm-<pid>.tmp (or a write probe) beside the file:
 * ours to remove, so that the toolkit comes back as it was. */
static int remove_leftovers(cdm_ctx *ctx, const char *dest)
{
    char *dir = path_dirname(dest);
    const char *base = path_basename(dest);
    char *prefix = xasprintf("%s.cdm-", base);
    char **names = NULL;
    int rc = fs_list_dir(ctx, dir, &names);
    for (char **n = names; !rc && n && *n; n++) {
        if (!str_starts_with(*n, prefix) ||
            !(str_ends_with(*n, ".tmp") || strstr(*n, ".cdm-probe-")))
            continue;
        char *path = path_join(dir, *n);
        if (fs_kind(path) == FS_FILE || fs_kind(path) == FS_LINK)
            rc = fs_remove_file(ctx, path);
        free(path);
    }
    strv_free(names);
    free(prefix);
    free(dir);
    return rc == CDM_ENOTFOUND ? CDM_OK : rc;
}

/* One file back as it was: gone when it was not there, else its kept content or link. */
static int restore_file(cdm_ctx *ctx, const struct db_deploy *d, const struct db_deploy_file *f)
{
    char *dest = path_join(d->toolkit, f->path);
    char *obj = NULL;
    int rc = remove_leftovers(ctx, dest);
    if (rc || !strcmp(f->before_kind, "none")) {
        if (!rc && fs_kind(dest) != FS_NONE)
            rc = fs_remove_file(ctx, dest);
    } else if (!strcmp(f->before_kind, "link")) {
        rc = deploy_link(ctx, f->before_link, dest);
    } else {
        char *dir = store_deployed_dir(ctx);
        obj = store_deployed_object(ctx, f->before_sha256);
        int own = store_own_dir(ctx, dir, false);
        free(dir);
        if (own && own != CDM_ENOTFOUND)
            rc = own;
        else if (fs_kind(obj) != FS_FILE)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "cannot put back '%s': its kept copy '%s' is missing", dest, obj);
        else
            rc = deploy_copy(ctx, obj, dest, f->before_mode > 0 && (f->before_mode & 0111), NULL);
    }
    free(obj);
    free(dest);
    return rc;
}

/* The kept files no deploy needs any more. */
static int prune(cdm_ctx *ctx, const struct db_deploy_file *files, size_t n)
{
    int rc = CDM_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        bool kept = false;
        if (strcmp(files[i].before_kind, "file") ||
            (rc = db_deploy_keeps(ctx, files[i].before_sha256, &kept)) || kept)
            continue;
        char *obj = store_deployed_object(ctx, files[i].before_sha256);
        if (fs_kind(obj) == FS_FILE)
            rc = fs_remove_file(ctx, obj);
        free(obj);
    }
    return rc;
}

int journal_deploy_undo(cdm_ctx *ctx, const struct db_deploy *d)
{
    struct db_deploy_file *files = NULL;
    size_t n = 0;
    int rc = db_deploy_set_state(ctx, d->id, "undoing");
    if (!rc)
        rc = db_deploy_files(ctx, d->id, &files, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = restore_file(ctx, d, &files[i]);
        if (!rc && i == 0)
            fs_crash_point("deploy-undo-file");
    }
    if (!rc)
        fs_sync_dir(d->toolkit);
    if (!rc)
        rc = db_deploy_delete(ctx, d->id);
    if (!rc)
        rc = prune(ctx, files, n);
    free(files);
    return rc;
}

/* Kept files no deploy records: a kill between keeping a file and recording the deploy. */
static int prune_unrecorded(cdm_ctx *ctx, unsigned *done)
{
    char *dir = store_deployed_dir(ctx);
    char **names = NULL;
    int rc = store_own_dir(ctx, dir, false); /* never deleting below a link */
    if (!rc)
        rc = fs_list_dir(ctx, dir, &names);
    if (rc == CDM_ENOTFOUND)
        rc = CDM_OK;
    for (char **n = names; !rc && n && *n; n++) {
        bool kept = false;
        if ((rc = db_deploy_keeps(ctx, *n, &kept)) || kept)
            continue;
        char *path = path_join(dir, *n);
        if (!(rc = fs_remove_file(ctx, path)))
            (*done)++;
        free(path);
    }
    strv_free(names);
    free(dir);
    return rc;
}

int journal_deploy_recover(cdm_ctx *ctx, unsigned *done)
{
    struct db_deploy *v = NULL;
    size_t n = 0;
    int rc = db_deploy_unsettled(ctx, &v, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = journal_deploy_undo(ctx, &v[i]);
        if (!rc) {
            cdm_warn(ctx, "an interrupted deploy of %s into '%s' was undone", v[i].install_id,
                     v[i].toolkit);
            (*done)++;
        }
    }
    free(v);
    return rc ? rc : prune_unrecorded(ctx, done);
}
