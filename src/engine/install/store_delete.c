/*
 * cdm store delete: a whole store its user made, gone, and nothing else. The store's
 * folders are read-only (the store is the user's data, never to be changed by a tool
 * that follows a link into it), which defeats `rm -rf` as a user: this gives the write
 * bits back only to delete. It refuses a folder without cdm's index, a folder holding
 * anything cdm did not make, files a deploy took out of a toolkit (the undo needs them),
 * and, unless forced, a store projects still link into.
 */
#include "db.h"
#include "links.h"
#include "store.h"
#include "store_paths.h"
#include "version.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names cdm makes at the top of a store (store_paths.h), and the index's companions. */
static bool cdm_entry(const char *name, const struct cdm_install_info *in, size_t n)
{
    static const char *const own[] = {"cdm.db",    "cdm.db-wal",   "cdm.db-shm", "cdm.db-journal",
                                      ".lock",     ".lock-holder", ".staging",   "downloads",
                                      ".deployed", "views",        ".attached"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(own); i++)
        if (!strcmp(name, own[i]))
            return true;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, in[i].id))
            return true;
    return false;
}

/* A name of an install's folder, "<version>-cuda<N>": what a store that lost its index
 * (a user's rm -rf, stopped by the read-only folders after the index went) still shows. */
static bool install_shaped(const char *name)
{
    const char *cu = strstr(name, "-cuda");
    char version[32];
    struct version v;
    if (!cu || (size_t)(cu - name) >= sizeof(version) || !cu[5] ||
        strspn(cu + 5, "0123456789") != strlen(cu + 5))
        return false;
    memcpy(version, name, (size_t)(cu - name));
    version[cu - name] = '\0';
    return version_parse(version, &v) && v.count >= 2;
}

/* A folder without the index that holds only what cdm makes (an install's folder at least),
 * or CDM_EMISMATCH: never a folder cdm did not make. */
static int check_indexless(cdm_ctx *ctx, const char *root)
{
    char **names = fs_list_names(root);
    size_t odd = 0, installs = 0;
    for (char **p = names; p && *p; p++) {
        if (install_shaped(*p))
            installs++;
        else if (!cdm_entry(*p, NULL, 0))
            odd++;
    }
    strv_free(names);
    if (!names || odd || !installs)
        return cdm_error_set(ctx, CDM_EMISMATCH,
                             "cannot delete '%s': it holds no index of cdm's (cdm.db)%s, so it "
                             "is no store cdm made; cdm deletes only its own",
                             root, odd ? " and names cdm does not make" : "");
    cdm_warn(ctx,
             "'%s' lost its index (cdm.db), but holds only what cdm makes: deleting it; "
             "projects that linked into it keep a link that leads nowhere ('cdm unlink' "
             "removes it)",
             root);
    return CDM_OK;
}

#define ASIDE_MARK ".cdm-deleting-"

/* A store delete killed after its rename left <root>.cdm-deleting-<pid> beside the store's
 * place: each whose process is gone is removed now (the delete had been decided). How many. */
static unsigned finish_interrupted(cdm_ctx *ctx, const char *root)
{
    char *parent = path_dirname(root);
    char *prefix = xasprintf("%s" ASIDE_MARK, path_basename(root));
    char **names = NULL;
    unsigned done = 0;
    if (fs_list_dir(ctx, parent, &names) == CDM_OK)
        for (char **n = names; *n; n++) {
            uint64_t pid = 0;
            const char *rest = name_pid(*n, prefix, &pid);
            if (rest && *rest)
                pid = 0;
            char *aside = pid ? path_join(parent, *n) : NULL;
            if (pid && !fs_process_running(pid) && fs_kind(aside) == FS_DIR &&
                fs_remove_tree(ctx, aside) == CDM_OK)
                done++;
            free(aside);
        }
    strv_free(names);
    free(prefix);
    free(parent);
    return done;
}

/* Moved aside first, in one rename, so that a kill leaves no half store where the store was;
 * then removed, write bits given back to its folders only to delete them. */
static int remove_aside(cdm_ctx *ctx, const char *root)
{
    char *aside = xasprintf("%s" ASIDE_MARK "%llu", root, (unsigned long long)fs_process_id());
    int rc = fs_rename(ctx, root, aside);
    if (!rc)
        rc = fs_remove_tree(ctx, aside);
    free(aside);
    return rc;
}

/* The entries of the store cdm did not make, quoted and joined; how many. */
static size_t strangers(cdm_ctx *ctx, const char *root, struct strbuf *out)
{
    struct cdm_install_info *in = NULL;
    size_t n = 0, count = 0;
    char **names = NULL;
    if (db_install_list(ctx, &in, &n) == CDM_OK && fs_list_dir(ctx, root, &names) == CDM_OK)
        for (char **p = names; *p; p++)
            if (!cdm_entry(*p, in, n) && count++ < 5)
                sb_addf(out, "%s'%s'", out->len ? ", " : "", *p);
    strv_free(names);
    free(in);
    return count;
}

static bool holds_files(const char *dir)
{
    char **names = fs_list_names(dir);
    bool any = names && names[0];
    strv_free(names);
    return any;
}

/* Refusals before anything changes: what the store holds that is not cdm's, or not cdm's
 * to drop. */
static int check_deletable(cdm_ctx *ctx, const char *root)
{
    struct strbuf odd = STRBUF_INIT;
    size_t n = strangers(ctx, root, &odd);
    int rc = CDM_OK;
    char *deployed = store_deployed_dir(ctx), *attached = path_join(root, ".attached");
    if (n)
        rc = cdm_error_set(ctx, CDM_EMISMATCH,
                           "cannot delete the store '%s': it holds %s%s, which cdm did not "
                           "make; move %s out first (cdm deletes only what it made)",
                           root, sb_str(&odd), n > 5 ? " and more" : "", n == 1 ? "it" : "them");
    else if (holds_files(deployed))
        rc = cdm_error_set(ctx, CDM_EBUSY,
                           "cannot delete the store '%s': it keeps the files 'cdm deploy' took "
                           "out of a CUDA toolkit, which its undo puts back; run 'cdm deploy "
                           "--undo TOOLKIT_DIR' first",
                           root);
    else if (holds_files(attached))
        rc = cdm_error_set(ctx, CDM_EBUSY,
                           "cannot delete the store '%s': it keeps the cuDNN files of an "
                           "environment cdm attach changed; run 'cdm detach VENV' first",
                           root);
    free(attached);
    free(deployed);
    sb_free(&odd);
    return rc;
}

/* The projects whose link leads into the store: refused unless force, unlinked if so. */
static int release_projects(cdm_ctx *ctx, const char *root, bool force, size_t *unlinked)
{
    struct cdm_usage *u = NULL;
    size_t n = 0;
    int rc = db_usage_list(ctx, &u, &n);
    struct strbuf who = STRBUF_INIT;
    size_t projects = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        bool again = false;
        for (size_t j = 0; j < i && !again; j++)
            again = !strcmp(u[j].project, u[i].project);
        if (again)
            continue;
        projects++;
        if (!force)
            sb_addf(&who, "%s'%s'", who.len ? ", " : "", u[i].project);
        else if (!(rc = project_unlink_for_remove(ctx, u[i].project)))
            (*unlinked)++;
    }
    if (!rc && projects && !force)
        rc = cdm_error_set(ctx, CDM_EBUSY,
                           "cannot delete the store '%s': %zu project%s link%s into it (%s); "
                           "unlink %s ('cdm unlink PROJECT'), or pass --force to unlink %s first",
                           root, projects, projects == 1 ? "" : "s", projects == 1 ? "s" : "",
                           sb_str(&who), projects == 1 ? "it" : "them",
                           projects == 1 ? "it" : "them");
    sb_free(&who);
    cdm_usage_free(u, n);
    return rc;
}

int cdm_store_delete(cdm_ctx *ctx, bool force, struct cdm_store_delete_result *out)
{
    memset(out, 0, sizeof(*out));
    const char *root = cdm_root(ctx);
    if (!copy_str(out->root, sizeof(out->root), root))
        return cdm_error_set(ctx, CDM_EINVAL, "the store's path '%s' is longer than cdm keeps",
                             root);
    char *index = store_index_path(ctx);
    enum fs_kind top = fs_kind(root), kind = fs_kind(index);
    free(index);
    if (top == FS_LINK)
        return cdm_error_set(ctx, CDM_EMISMATCH,
                             "cannot delete the store '%s': it is a link; give the folder it "
                             "leads to (--root)",
                             root);
    unsigned finished = finish_interrupted(ctx, root);
    if (top != FS_DIR && finished)
        return CDM_OK; /* what an interrupted delete of it left is gone now */
    if (top != FS_DIR)
        return cdm_error_set(ctx, CDM_ENOTFOUND, "there is no store at '%s' to delete", root);
    if (kind != FS_FILE) {
        int rc = check_indexless(ctx, root);
        return rc ? rc : remove_aside(ctx, root);
    }
    /* looked at as it is first (a refusal leaves even the lock file unmade), then again
     * under the store's lock, after its interrupted work is settled */
    struct cdm_install_info *in = NULL;
    int rc = store_open(ctx, STORE_READ, 0);
    if (rc || (rc = check_deletable(ctx, root)) ||
        (rc = store_open(ctx, STORE_WRITE, RECOVER_ALL)) || (rc = check_deletable(ctx, root)))
        return rc;
    if (!(rc = db_install_list(ctx, &in, &out->installs)))
        free(in);
    if (rc || (rc = release_projects(ctx, root, force, &out->unlinked)))
        return rc;
    db_close(ctx);              /* the index goes with the rest; the lock file too */
    if (fs_host_is_windows()) { /* a folder holding an open file does not move there */
        fs_unlock(ctx->lock);
        ctx->lock = NULL;
    }
    return remove_aside(ctx, root);
}
