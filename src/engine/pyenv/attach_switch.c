/*
 * A project's link changes, as the Python environments attached to it see them: each is
 * checked before a switch (its framework's rule, the files it links) and, on Windows, where
 * its links are hard links to the install's files, made to follow after it (attach_switch.h).
 */
#include "attach_switch.h"
#include "dll_hook.h"
#include "attach_files.h"
#include "db_attach.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "pyenv.h"

#include <stdlib.h>
#include <string.h>

/* One environment attached to the project, against the install it would follow: why not
 * (into why, "" when it may). */
/* Does the recorded link target (<project>/<link>/<sub>) end in the install's folder sub
 * ("bin", "bin/x64", "lib")? Archives of other layouts keep their libraries elsewhere. */
static bool same_folder_below(const char *target, const char *sub)
{
    size_t t = strlen(target), n = strlen(sub);
    if (n == 0 || n >= t)
        return n == 0;
    const char *end = target + t - n;
    if (end[-1] != '/' && end[-1] != '\\')
        return false;
    for (size_t i = 0; i < n; i++) {
        char x = end[i] == '\\' ? '/' : end[i], y = sub[i] == '\\' ? '/' : sub[i];
        if (x != y)
            return false;
    }
    return true;
}

static void switch_problem(cdm_ctx *ctx, const struct db_attachment *a,
                           const struct cdm_install_info *to, char *why, size_t size)
{
    why[0] = '\0';
    size_t own = 0;
    char **sites = py_site_packages(a->venv, &own);
    struct py_cudnn_place place;
    if (py_cudnn_place(a->venv, sites, own, fs_host_is_windows(), &place)) {
        const char *sub = attach_target_sub(to->lib_dir, to->bin_dir);
        if (!attach_suits(sites, attach_reference(&place.dist, place.origin), to, why, size)) {
            /* why says it */
        } else if (!same_folder_below(a->target, sub)) {
            snprintf(why, size,
                     "its links lead into the link's folder where the attached install kept its "
                     "libraries, and %s keeps them in '%s' (another layout); detach it first, "
                     "then attach it again after the switch",
                     to->id, sub);
        } else {
            /* every file it links must be there in the new install */
            char *lib = path_join(to->path, sub);
            char **kept = NULL;
            struct strbuf missing = STRBUF_INIT;
            if (fs_list_dir(ctx, a->original, &kept) == CDM_OK &&
                attach_missing_names(kept, lib, &missing))
                snprintf(why, size, "%s has no %s, which it links", to->id, sb_str(&missing));
            sb_free(&missing);
            strv_free(kept);
            free(lib);
        }
        free(place.folder);
    }
    strv_free(sites);
}

int attach_check_switch(cdm_ctx *ctx, const char *project, const struct cdm_install_info *to,
                        const struct cdm_install_info *also, bool force)
{
    struct db_attachment *v = NULL;
    size_t n = 0;
    int rc = db_attach_of_project(ctx, project, &v, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        const struct db_attachment *a = &v[i];
        if (!to) {
            cdm_warn(ctx,
                     "'%s' is attached to '%s': its cuDNN links lead nowhere while the project "
                     "is unlinked; 'cdm detach %s' gives it its own files back",
                     a->venv, project, a->venv);
            continue;
        }
        char why[1024];
        /* an environment attached to the second major follows that one */
        const struct cdm_install_info *mine =
            also && *also->id && atoi(a->install_id) == atoi(also->version) ? also : to;
        switch_problem(ctx, a, mine, why, sizeof(why));
        if (!why[0])
            continue;
        if (force)
            cdm_warn(ctx, "switching anyway (--force), though '%s' follows it: %s", a->venv, why);
        else
            rc = cdm_error_set(ctx, CDM_EMISMATCH,
                               "cannot switch '%s' to %s: the Python environment '%s' follows "
                               "it and %s; link a version it accepts, detach it first ('cdm "
                               "detach %s'), or pass --force",
                               project, mine->id, a->venv, why, a->venv);
    }
    free(v);
    return rc;
}

/* a->target is <project>/<link>/<sub>: the file <root>/<sub>/<name>, for root the folder
 * the project's link leads to (NULL when it leads to none); *link_path <project>/<link>. */
static char *file_under(const struct db_attachment *a, const char *project, const char *root,
                        const char *name, char **link_path)
{
    size_t n = strlen(project);
    if (!path_within(a->target, project) || !a->target[n])
        return NULL;
    const char *rest = a->target + n + 1;
    const char *sub = rest + strcspn(rest, "/\\"); /* /<sub>, or "" */
    if (link_path)
        *link_path = xstrndup(a->target, (size_t)(sub - a->target));
    if (!root)
        return NULL;
    char *dir = *sub ? path_join(root, sub + 1) : xstrdup(root);
    char *file = path_join(dir, name);
    free(dir);
    return file;
}

/* Replace a's file name, still another name of old_root's file, by a hard link to the
 * store's file the project's link now leads to (made by its real path: Wine makes no hard
 * link through a junction just retargeted), else a link through the project's link. */
static int follow_one(cdm_ctx *ctx, const struct db_attachment *a, const char *project,
                      const char *old_root, const char *name)
{
    char *path = path_join(a->folder, name), *want = path_join(a->target, name);
    char *link_path = NULL, *new_root = NULL;
    char *old = file_under(a, project, old_root, name, &link_path);
    char *tmp = xasprintf("%s.cdm-%llu.tmp", path, (unsigned long long)fs_process_id());
    int rc = CDM_OK;
    if (old && fs_kind(path) == FS_FILE && link_same_file(path, old) &&
        !link_same_file(path, want)) {
        enum link_kind kind = LINK_NONE;
        if (link_read(ctx, link_path, &kind, &new_root) || kind != LINK_OURS) {
            free(new_root);
            new_root = NULL;
        }
        char *real = file_under(a, project, new_root, name, NULL);
        fs_clean_stale_temps(ctx, a->folder, name); /* one a kill left */
        rc = link_view_entry(ctx, real ? real : want, tmp, false);
        if (!rc && (rc = fs_rename(ctx, tmp, path)))
            fs_remove_file(ctx, tmp);
        free(real);
    }
    free(tmp);
    free(old);
    free(new_root);
    free(link_path);
    free(want);
    free(path);
    return rc;
}

/* The hook of a's environment (dll_hook.h), where it has one, names the project's link's
 * bin folder now (bin_dir, relative to the link). */
static void follow_hook(cdm_ctx *ctx, const struct db_attachment *a, const char *project,
                        const char *bin_dir)
{
    char *site = dll_hook_site(a->venv), *link_path = NULL;
    char **had = site ? dll_hook_read(site) : NULL;
    file_under(a, project, NULL, "", &link_path);
    if (had && link_path) {
        char *dir = *bin_dir ? path_join(link_path, bin_dir) : xstrdup(link_path);
        char *dirs[] = {path_slashes_to(dir, '\\'), NULL};
        if (dll_hook_write(ctx, site, dirs))
            cdm_warn(ctx, "%s; 'cdm detach %s' and attach again", cdm_error_message(ctx), a->venv);
        free(dir);
    }
    strv_free(had);
    free(link_path);
    free(site);
}

void attach_follow_switch(cdm_ctx *ctx, const char *project, const char *old_root,
                          const char *bin_dir)
{
    struct db_attachment *v = NULL;
    size_t n = 0;
    if (db_attach_of_project(ctx, project, &v, &n))
        return;
    for (size_t i = 0; i < n; i++) {
        const struct db_attachment *a = &v[i];
        char **kept = NULL;
        if (fs_host_is_windows() && bin_dir)
            follow_hook(ctx, a, project, bin_dir);
        if (!old_root || attach_is_folder_link(ctx, a) || !a->original[0] ||
            fs_list_dir(ctx, a->original, &kept))
            continue;
        for (size_t j = 0; kept[j]; j++)
            if (follow_one(ctx, a, project, old_root, kept[j]))
                cdm_warn(ctx,
                         "'%s' in '%s' still leads to the old install: %s; 'cdm detach %s' "
                         "and attach again",
                         kept[j], a->folder, cdm_error_message(ctx), a->venv);
        if (kept[0])
            fs_sync_dir(a->folder);
        strv_free(kept);
    }
    free(v);
}
