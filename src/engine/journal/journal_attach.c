/*
 * The attach protocol: a Python environment's cuDNN files given to a project (cdm attach)
 * and given back (cdm detach), recorded in the user's state, under its lock:
 *
 *   Attach records the attachment "attaching" (naming the kept folder), then for each file
 *   moves it aside and puts its link in its place, writes the DLL folders hook (Windows),
 *   and marks the record "attached". Detach marks it "detaching", removes the hook, puts
 *   each kept file back where cdm's link (or nothing) is, then "detached".
 *
 * A rename is the only way the wheel's files move, so they come back byte for byte.
 *
 * Recovery (the next writer, under the state's lock): a record left "attaching" or
 * "detaching" gets its files back (attach_files.c), and its hook removed: an environment
 * ends attached or exactly as it was; the record goes (attaching) or is "detached".
 * Records of an older cdm, whose whole folder was the link, are settled as before: a link
 * in place means the attach happened.
 */
#include "journal_attach.h"
#include "attach_files.h"
#include "attach_hook.h"
#include "dll_hook.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <stdlib.h>
#include <string.h>

/* Remove <state's folder>/.attached/<id> once the wheel's folder has left it (never anything
 * else). */
static void attached_dir_drop(cdm_ctx *ctx, long long id, const char *original)
{
    char *dir = state_attached_dir(ctx, id);
    char *kept = path_dirname(original);
    if (!strcmp(dir, kept) && fs_kind(original) == FS_NONE)
        fs_remove_tree(ctx, dir);
    free(kept);
    free(dir);
}

/* A new folder of cdm's own, refused when something else (a link) stands there. */
static int make_kept_dir(cdm_ctx *ctx, const char *dir)
{
    int rc = fs_mkdir(ctx, dir);
    if (!rc && fs_kind(dir) != FS_DIR)
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot keep the wheel's files in '%s': it is not a folder (a link?); "
                           "remove it and try again",
                           dir);
    return rc;
}

/* The folder that keeps the wheel's own files while attached: under the user's state, or,
 * when that is on another file system than the environment, beside the wheel's folder. */
static int keep_first(cdm_ctx *ctx, struct db_attachment *a, const char *name)
{
    char *from = path_join(a->folder, name);
    char *to = path_join(a->original, name);
    char *parent = path_dirname(a->original);
    int rc = fs_mkdir_p(ctx, parent);
    if (!rc)
        rc = make_kept_dir(ctx, parent); /* .attached itself must not be a link either */
    if (!rc)
        rc = make_kept_dir(ctx, a->original);
    if (rc || !(rc = fs_rename(ctx, from, to)))
        goto out;
    /* another file system (or no room under the state): beside the wheel's folder */
    struct saved_error first = error_save(ctx);
    fs_remove_tree(ctx, a->original);
    char *wheel_parent = path_dirname(a->folder);
    char *kept_name = xasprintf(".%s.cdm-original-%lld", path_basename(a->folder), a->id);
    char *beside = path_join(wheel_parent, kept_name);
    rc = copy_path(ctx, a->original, sizeof(a->original), beside);
    free(to);
    to = path_join(a->original, name);
    if (!rc)
        rc = db_attach_set_original(ctx, a->id, a->original);
    if (!rc && !(rc = make_kept_dir(ctx, a->original)) && (rc = fs_rename(ctx, from, to)))
        cdm_error_set(ctx, rc, "cannot keep the wheel's files: %s; and %s",
                      first.message ? first.message : "unknown error", cdm_error_message(ctx));
    free(first.message);
    free(beside);
    free(kept_name);
    free(wheel_parent);
out:
    free(parent);
    free(to);
    free(from);
    return rc;
}

/* Move each wheel file aside and put cdm's link in its place, in the order recovery
 * expects: a name holds the wheel's file, or nothing, or cdm's link once its file is kept. */
static int link_files(cdm_ctx *ctx, struct db_attachment *a, char *const *names)
{
    int rc = CDM_OK;
    for (size_t i = 0; names[i] && !rc; i++) {
        char *path = path_join(a->folder, names[i]);
        char *kept = path_join(a->original, names[i]);
        char *want = path_join(a->target, names[i]);
        rc = i == 0 ? keep_first(ctx, a, names[i]) : fs_rename(ctx, path, kept);
        if (!rc)
            fs_crash_point("attach-moved");
        if (!rc)
            rc = link_view_entry(ctx, want, path, false);
        if (!rc)
            fs_crash_point("attach-linked");
        free(want);
        free(kept);
        free(path);
    }
    if (!rc)
        fs_sync_dir(a->folder);
    return rc;
}

/* The steps of an attach: a (venv, folder, project, target, install_id, wheel filled in)
 * recorded "attaching" with its kept folder, each of names moved there and linked, the
 * hook written, the record "attached". A failure puts back what moved. */
int journal_attach(cdm_ctx *ctx, struct db_attachment *a, char *const *names,
                   struct cdm_attach_result *out)
{
    COPY_STR_ARRAY(a->state, "attaching");
    int rc = db_attach_insert(ctx, a);
    if (rc)
        return rc;
    if (names) { /* a hook alone keeps no files: its record has no kept folder */
        char *kept_dir = state_attached_dir(ctx, a->id);
        rc = copy_path(ctx, a->original, sizeof(a->original), kept_dir);
        free(kept_dir);
        if (!rc)
            rc = db_attach_set_original(ctx, a->id, a->original);
    }
    fs_crash_point("attach-recorded");
    if (rc || (names && (rc = link_files(ctx, a, names))) ||
        (rc = attach_write_hook(ctx, a, false, out))) {
        /* put back what moved; the record goes once nothing is kept */
        struct saved_error why_failed = error_save(ctx);
        unsigned restored, dropped;
        attach_remove_hook(ctx, a);
        if (attach_restore(ctx, a, false, fs_host_is_windows(), &restored, &dropped) == CDM_OK)
            db_attach_delete(ctx, a->id);
        why_failed.code = CDM_EIO;
        return error_restore(ctx, &why_failed);
    }
    fs_crash_point("attach-done");
    return db_attach_set_state(ctx, a->id, "attached");
}

/* ---- detach ---------------------------------------------------------------------------- */

/* Undo an attachment made before files were linked one by one: the whole folder was a
 * link and the wheel's folder was kept in one piece. */
static int detach_folder_link(cdm_ctx *ctx, struct db_attachment *a)
{
    if (fs_kind(a->original) != FS_DIR)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot detach '%s': the wheel's own folder '%s' is gone; reinstall "
                             "the nvidia-cudnn wheel (pip install --force-reinstall) after "
                             "removing the link '%s'",
                             a->venv, a->original, a->folder);
    int rc = db_attach_set_state(ctx, a->id, "detaching");
    if (rc)
        return rc;
    if ((rc = link_remove(ctx, a->folder))) {
        db_attach_set_state(ctx, a->id, "attached");
        return rc;
    }
    if ((rc = fs_rename(ctx, a->original, a->folder)))
        return rc; /* recovery moves it back: the record says detaching */
    fs_sync_dir(a->folder);
    if ((rc = db_attach_set_state(ctx, a->id, "detached")))
        return rc;
    attached_dir_drop(ctx, a->id, a->original);
    return CDM_OK;
}

/* Settle a recorded attachment by giving the environment its files back (or, where pip or
 * uv replaced them, leaving the environment's own): the record ends "detached". */
int journal_detach(cdm_ctx *ctx, struct db_attachment *a, bool wheel_changed,
                   struct cdm_attach_result *out)
{
    if (attach_is_folder_link(ctx, a))
        return detach_folder_link(ctx, a);
    int rc = attach_kept_check(ctx, a, fs_host_is_windows());
    if (rc || (rc = db_attach_set_state(ctx, a->id, "detaching")))
        return rc;
    fs_crash_point("detach-recorded");
    if ((rc = attach_remove_hook(ctx, a)))
        return rc; /* recovery finishes it: the record says detaching */
    rc = attach_restore(ctx, a, wheel_changed, fs_host_is_windows(), &out->restored, &out->dropped);
    if (rc)
        return rc; /* recovery finishes it: the record says detaching */
    fs_crash_point("detach-moved");
    return db_attach_set_state(ctx, a->id, "detached");
}

/* ---- recovery -------------------------------------------------------------------------- */

/* Is folder cdm's link to target? */
static bool linked_to(cdm_ctx *ctx, const char *folder, const char *target)
{
    enum link_kind kind = LINK_FOREIGN;
    char *seen = NULL;
    link_read(ctx, folder, &kind, &seen);
    /* a junction reads back in its own spelling: then compare where both lead */
    bool same =
        kind == LINK_OURS && ((seen && !strcmp(seen, target)) || fs_same_path(folder, target));
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
        attached_dir_drop(ctx, a->id, a->original);
    return rc;
}

/* An attach or detach interrupted: either way the wheel's files go back (attach_files.c),
 * and the record goes (attaching) or is settled (detaching). */
int journal_attach_recover(cdm_ctx *ctx, unsigned *done)
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
