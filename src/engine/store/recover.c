/*
 * Recovery, for every kind of interrupted work. Each writes its journal into the index
 * before it touches the disk, so the next writer (under the store lock) can tell how far
 * it got:
 *
 * - An install records itself "pending" once its checked folder is .staging/<id>.ready,
 *   then moves it into place and marks the record "ok" (cdm_install). A pending record
 *   with its .ready folder is rolled forward; one whose folder is in place is marked
 *   "ok"; one with neither is dropped. A remove moves the folder to
 *   .staging/<id>.removing before it deletes the record (cdm_remove): when the record is
 *   still there, the folder goes back. Everything else in .staging/ is a leftover.
 *
 * - A link change records its generation "pending", switches the link, writes the pin
 *   file and marks it "ok" (cdm_link, cdm_unlink, cdm_rollback). When the link on disk
 *   is the one a pending generation names, the change happened and the record becomes
 *   "ok" (and the pin follows, and the attached environments' hard links follow the
 *   switch); otherwise the record goes. Only "ok" generations are history.
 *
 * - cdm attach records an attachment "attaching" (naming the folder that keeps the wheel's
 *   files), moves each cuDNN file there and puts its link in its place, and marks it
 *   "attached"; cdm detach marks it "detaching", puts the files back and marks it
 *   "detached". Either interrupted, the files go back (an environment ends attached or as
 *   it was) and the record goes or is "detached". Records of an older cdm, whose whole
 *   folder was the link, are settled as before: a link in place means the attach happened.
 */
#include "recover.h"
#include "deploy_files.h"
#include "db.h"
#include "attach_switch.h"
#include "attach_files.h"
#include "dll_hook.h"
#include "db_attach.h"
#include "project.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <stdlib.h>
#include <string.h>

/* ---- link changes ---------------------------------------------------------------------- */

/* Did the change of a pending generation reach the disk? */
static bool pending_happened(cdm_ctx *ctx, const struct db_generation_ref *g)
{
    char *link_path = path_join(g->project, g->link_name);
    enum link_kind kind = LINK_FOREIGN;
    char *target = NULL;
    link_read(ctx, link_path, &kind, &target);
    bool happened = g->install_id
                        ? kind == LINK_OURS && store_path_is_install(ctx, target, g->install_id)
                        : kind == LINK_NONE;
    if (g->install_id && g->view) {
        char *view = store_view_path(ctx, g->view);
        happened = kind == LINK_OURS && (!strcmp(target, view) || fs_same_path(target, view));
        free(view);
    }
    /* recorded without a link once none could be made: the record is the change */
    if (g->install_id && g->no_link)
        happened = kind == LINK_NONE;
    free(target);
    free(link_path);
    return happened;
}

/* The folder a generation's link leads to: its view, else its install (malloc'd; NULL for
 * an unlink or no such generation). */
static char *generation_target(cdm_ctx *ctx, const char *project, long long number)
{
    struct cdm_generation g;
    if (number < 1 || db_generation_get(ctx, project, number, &g) || !*g.install_id)
        return NULL;
    return *g.view ? store_view_path(ctx, g.view) : store_install_path(ctx, g.install_id);
}

/* A change killed after its switch, before the attached environments followed it: their
 * hard links (Windows) still name the files of the generation before; they follow now, as
 * the change would have made them. */
static void follow_settled(cdm_ctx *ctx, const struct db_generation_ref *g)
{
    char *old_root = generation_target(ctx, g->project, g->number - 1);
    struct cdm_install_info in;
    if (old_root && g->install_id && db_install_get(ctx, g->install_id, &in) == CDM_OK)
        attach_follow_switch(ctx, g->project, old_root, g->view ? NULL : in.bin_dir);
    free(old_root);
}

/* Settle one pending generation by what the disk shows. */
static int settle(cdm_ctx *ctx, const struct db_generation_ref *g, void *arg)
{
    unsigned *done = arg;
    bool there = !cdm_project_gone(g->project);
    bool happened = there && pending_happened(ctx, g);
    int rc = db_generation_settle(ctx, g->project, g->number, happened ? "ok" : NULL);
    if (ctx->options.verbose)
        cdm_note(ctx, "settled the interrupted link change of '%s' (generation %lld: %s)",
                 g->project, g->number, happened ? "done" : "undone");
    if (there) {
        project_clean_leftovers(ctx, g->project, g->link_name);
        struct cdm_project p;
        /* The pin follows the link; a failure here is reported by the next link. */
        if (!rc && happened && g->install_id && cdm_project_open(ctx, g->project, &p) == CDM_OK)
            project_pin_write(ctx, &p, g->install_id);
        if (!rc && happened)
            follow_settled(ctx, g);
    }
    (*done)++;
    return rc;
}

/* ---- installs -------------------------------------------------------------------------- */

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

/* ---- Python environments (cdm attach / cdm detach) ------------------------------------- */

/* Remove <state's folder>/.attached/<id> once the wheel's folder has left it (never anything
 * else). */
void recover_attached_dir_drop(cdm_ctx *ctx, long long id, const char *original)
{
    char *dir = state_attached_dir(ctx, id);
    char *kept = path_dirname(original);
    if (!strcmp(dir, kept) && fs_kind(original) == FS_NONE)
        fs_remove_tree(ctx, dir);
    free(kept);
    free(dir);
}

/* Is folder cdm's link to target? */
static bool linked_to(cdm_ctx *ctx, const char *folder, const char *target)
{
    enum link_kind kind = LINK_FOREIGN;
    char *seen = NULL;
    link_read(ctx, folder, &kind, &seen);
    bool same = kind == LINK_OURS && seen && !strcmp(seen, target);
    if (kind == LINK_OURS && !same) {
        /* a junction reads back in its own spelling: compare where both lead */
        char *a = fs_realpath(folder), *b = fs_realpath(target);
        same = a && b && !strcmp(a, b);
        free(a);
        free(b);
    }
    free(seen);
    return same;
}

/* An attachment made before files were linked one by one: the whole folder was the link. */
static int recover_folder_link(cdm_ctx *ctx, const struct db_attachment *a)
{
    bool linked = linked_to(ctx, a->folder, a->target);
    bool folder_gone = fs_kind(a->folder) == FS_NONE;
    bool kept = a->original[0] && fs_kind(a->original) == FS_DIR;
    bool attaching = !strcmp(a->state, "attaching");
    int rc = CDM_OK;
    if (linked)
        return db_attach_set_state(ctx, a->id, "attached");
    if (folder_gone && kept)
        rc = fs_rename(ctx, a->original, a->folder);
    if (!rc && attaching && fs_kind(a->folder) != FS_NONE)
        rc = db_attach_delete(ctx, a->id);
    else if (!rc && !attaching && fs_kind(a->folder) == FS_DIR)
        rc = db_attach_set_state(ctx, a->id, "detached");
    if (!rc)
        recover_attached_dir_drop(ctx, a->id, a->original);
    return rc;
}

/* An attach or detach interrupted: either way the wheel's files go back (attach_files.c),
 * and the record goes (attaching) or is settled (detaching). */
static int recover_attachments(cdm_ctx *ctx, unsigned *done)
{
    struct db_attachment *v = NULL;
    size_t n = 0;
    bool windows = fs_host_is_windows();
    int rc = db_attach_unsettled(ctx, &v, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        struct db_attachment *a = &v[i];
        if (fs_kind(a->folder) != FS_DIR) {
            rc = recover_folder_link(ctx, a);
        } else {
            unsigned restored, dropped;
            char *site = windows ? dll_hook_site(a->venv) : NULL;
            /* the hook goes with the files: an attach undone, or a detach finished */
            rc = site ? dll_hook_remove(ctx, site) : CDM_OK;
            free(site);
            if (!rc)
                rc = attach_restore(ctx, a, false, windows, &restored, &dropped);
            if (!rc)
                rc = strcmp(a->state, "attaching") ? db_attach_set_state(ctx, a->id, "detached")
                                                   : db_attach_delete(ctx, a->id);
        }
        (*done)++;
    }
    free(v);
    return rc;
}

static int recover_installs(cdm_ctx *ctx, unsigned *done)
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

int recover_run(cdm_ctx *ctx, unsigned protocols, unsigned *done)
{
    int rc = CDM_OK;
    if (protocols & RECOVER_LINKS)
        rc = db_generation_each_pending(ctx, settle, done);
    if (!rc && (protocols & RECOVER_ATTACH))
        rc = recover_attachments(ctx, done);
    if (!rc && (protocols & RECOVER_DEPLOYS))
        rc = deploy_recover(ctx, done);
    if (!rc && (protocols & RECOVER_INSTALLS))
        rc = recover_installs(ctx, done);
    return rc;
}
