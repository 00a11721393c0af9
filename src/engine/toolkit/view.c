/* Views: a toolkit with an install's cuDNN on top, made of links (view.h). */
#include "view.h"
#include "upstream.h"
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_dir(const char *top, const char *rel)
{
    char *path = path_join(top, rel);
    bool dir = fs_is_dir_followed(path);
    free(path);
    return dir;
}

struct view_dirs view_dirs(const char *dir, bool windows)
{
    /* Windows toolkits keep import libraries in lib\x64 and, from CUDA 13, DLLs in
     * bin\x64; Linux ones have lib64 (a link to targets/<arch>/lib), lib in some. */
    struct view_dirs d;
    if (windows && has_dir(dir, "lib/x64"))
        COPY_STR_ARRAY(d.lib, "lib/x64");
    else if (!windows && has_dir(dir, "lib64"))
        COPY_STR_ARRAY(d.lib, "lib64");
    else
        COPY_STR_ARRAY(d.lib, "lib");
    if (windows && has_dir(dir, "bin/x64"))
        COPY_STR_ARRAY(d.bin, "bin/x64");
    else
        COPY_STR_ARRAY(d.bin, "bin");
    return d;
}

/* A link at path to target, a folder or a file. */
static int place(cdm_ctx *ctx, const char *path, const char *target)
{
    return link_view_entry(ctx, target, path, fs_is_dir_followed(target));
}

/* A cuDNN file a toolkit holds from an earlier merge into it (cudnn.h, libcudnn*.so*,
 * cudnn64_9.dll, cudnn.lib): left out of a view, so that only the install's are found. */
static bool is_cudnn_file(const char *name)
{
    return str_starts_with_icase(name, "cudnn") || str_starts_with_icase(name, "libcudnn");
}

/* Make the folder path, with a link for each entry of the toolkit's folder tk (but
 * cuDNN's, unless all). */
static int mirror(cdm_ctx *ctx, const char *path, const char *tk, bool all)
{
    char **names = NULL;
    int rc = fs_mkdir(ctx, path);
    if (!rc && fs_is_dir_followed(tk))
        rc = fs_list_dir(ctx, tk, &names);
    for (char **n = names; !rc && n && *n; n++) {
        if (!all && is_cudnn_file(*n))
            continue;
        char *from = path_join(path, *n), *to = path_join(tk, *n);
        rc = place(ctx, from, to);
        free(from);
        free(to);
    }
    strv_free(names);
    return rc;
}

/* Put a real folder at path in place of the link to the toolkit's folder tk (its cuDNN
 * files left out unless all). */
static int open_up(cdm_ctx *ctx, const char *path, const char *tk, bool all)
{
    int rc = link_remove(ctx, path);
    return rc ? rc : mirror(ctx, path, tk, all);
}

/* The install's folder src over the view's folder dir, which mirrors the toolkit's tk:
 * each entry is linked, over the toolkit's of the same name; a folder both have is opened
 * up and merged the same way. */
static int overlay(cdm_ctx *ctx, const char *dir, const char *tk, const char *src)
{
    char **names = NULL;
    int rc = fs_list_dir(ctx, src, &names);
    for (char **n = names; !rc && n && *n; n++) {
        char *at = path_join(dir, *n), *from_tk = path_join(tk, *n), *from = path_join(src, *n);
        enum fs_kind kind = fs_kind(at);
        bool merge = fs_is_dir_followed(from) && fs_is_dir_followed(at);
        if (merge && kind == FS_LINK)
            rc = open_up(ctx, at, from_tk, false);
        if (merge && !rc)
            rc = overlay(ctx, at, from_tk, from);
        else if (!merge && kind != FS_NONE)
            rc = kind == FS_LINK ? link_remove(ctx, at) : fs_remove_tree(ctx, at);
        if (!merge && !rc)
            rc = place(ctx, at, from);
        free(at);
        free(from_tk);
        free(from);
    }
    strv_free(names);
    return rc;
}

int view_real_folder(cdm_ctx *ctx, const char *view, const char *tk, const char *rel, bool all)
{
    char *at = xstrdup(view), *from = xstrdup(tk);
    char *parts = xstrdup(rel);
    int rc = CDM_OK;
    for (char *p = parts; !rc && p && *p;) {
        char *slash = strchr(p, '/');
        if (slash)
            *slash = '\0';
        char *next_at = path_join(at, p), *next_from = path_join(from, p);
        free(at);
        free(from);
        at = next_at;
        from = next_from;
        enum fs_kind kind = fs_kind(at);
        if (kind == FS_LINK)
            rc = open_up(ctx, at, from, all);
        else if (kind == FS_NONE)
            rc = fs_mkdir(ctx, at);
        else if (kind != FS_DIR)
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "cannot build the view '%s': the toolkit has a file '%s' where "
                               "cuDNN needs a folder",
                               view, from);
        p = slash ? slash + 1 : NULL;
    }
    free(parts);
    free(at);
    free(from);
    return rc;
}

/* One folder of the install and where it goes in the view. */
struct mapping {
    char src[48]; /* relative to the install */
    char dst[32]; /* relative to the view */
};

/* include to include, the libraries into the toolkit's library folder, the DLLs into its
 * program folder; n set to how many. */
static size_t mappings(const struct cdm_install_info *in, const char *tk, struct mapping m[3])
{
    struct view_dirs d = view_dirs(tk, fs_platform_is_windows(in->platform));
    COPY_STR_ARRAY(m[0].src, in->include_dir);
    COPY_STR_ARRAY(m[0].dst, "include");
    COPY_STR_ARRAY(m[1].src, in->lib_dir);
    COPY_STR_ARRAY(m[1].dst, d.lib);
    COPY_STR_ARRAY(m[2].src, in->bin_dir);
    COPY_STR_ARRAY(m[2].dst, d.bin);
    return *in->bin_dir ? 3 : 2;
}

static int build(cdm_ctx *ctx, const struct cdm_install_info *in, const char *tk, const char *at)
{
    int rc = mirror(ctx, at, tk, true);
    struct mapping m[3];
    size_t count = mappings(in, tk, m);
    for (size_t i = 0; i < count && !rc; i++) {
        char *src = path_join(in->path, m[i].src);
        char *dst = path_join(at, m[i].dst), *from_tk = path_join(tk, m[i].dst);
        if (fs_is_dir_followed(src) && !(rc = view_real_folder(ctx, at, tk, m[i].dst, false)))
            rc = overlay(ctx, dst, from_tk, src);
        free(src);
        free(dst);
        free(from_tk);
    }
    return rc;
}

int view_place(cdm_ctx *ctx, const char *name, view_build_fn build, void *arg)
{
    char *final = store_view_path(ctx, name);
    char *views = store_views_dir(ctx), *staging = store_staging_dir(ctx);
    char *tmp = store_staging_tmp(ctx, name), *old = store_staging_path(ctx, name, "old");
    bool there = fs_kind(final) == FS_DIR;
    int rc;
    if ((rc = fs_mkdir_p(ctx, staging)) || (rc = fs_remove_tree(ctx, tmp)) ||
        (rc = build(ctx, arg, tmp)))
        goto fail;
    fs_crash_point("view-built");
    if (there && ((rc = fs_remove_tree(ctx, old)) || (rc = fs_rename(ctx, final, old))))
        goto fail;
    /* views/ is cdm's own folder: a link there is refused, never written through */
    if ((rc = store_own_dir(ctx, views, true)) || (rc = fs_rename(ctx, tmp, final)))
        goto fail;
    fs_sync_dir(views);
    if (there)
        fs_remove_tree(ctx, old);
    goto out;
fail : {
    struct saved_error saved = error_save(ctx);
    fs_remove_tree(ctx, tmp);
    rc = error_restore(ctx, &saved);
}
out:
    free(old);
    free(tmp);
    free(staging);
    free(views);
    free(final);
    return rc;
}

struct toolkit_build {
    const struct cdm_install_info *in;
    const char *tk;
};

static int build_toolkit_view(cdm_ctx *ctx, void *arg, const char *at)
{
    const struct toolkit_build *b = arg;
    return build(ctx, b->in, b->tk, at);
}

int view_ensure(cdm_ctx *ctx, const struct cdm_install_info *in, const char *tk_real,
                const char *name)
{
    char *final = store_view_path(ctx, name);
    /* One made whole and since broken (a toolkit reinstalled, a file deleted) is built
     * again and swapped in. */
    bool whole = fs_kind(final) == FS_DIR && !view_check(ctx, in, tk_real, name, NULL, NULL);
    free(final);
    if (whole)
        return CDM_OK;
    if (!fs_is_dir_followed(tk_real))
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot build the view %s: the CUDA toolkit folder '%s' is gone; "
                             "install it again or link with another --toolkit",
                             name, tk_real);
    struct toolkit_build b = {in, tk_real};
    return view_place(ctx, name, build_toolkit_view, &b);
}

/* ---- checking and collecting ------------------------------------------------------------- */

/* Where view_check's problems go. */
struct problems {
    view_problem_fn fn;
    void *arg;
    unsigned count;
};

static void problem(struct problems *pr, const char *path, const char *what)
{
    pr->count++;
    if (pr->fn)
        pr->fn(pr->arg, path, what);
}

/* Every link below dir (a folder of the view) must lead somewhere: a toolkit moved or
 * uninstalled leaves them broken; and every entry of the toolkit's folder tk (NULL when
 * unknown) must be there but cuDNN's, else the toolkit gained files since. */
static void check_links(cdm_ctx *ctx, const char *dir, const char *tk, const char *rel,
                        struct problems *pr)
{
    char **names = NULL, **theirs = NULL;
    if (tk && fs_is_dir_followed(tk) && fs_list_dir(ctx, tk, &theirs) == CDM_OK)
        for (char **n = theirs; *n; n++) {
            char *at = path_join(dir, *n);
            char *sub = *rel ? xasprintf("%s/%s", rel, *n) : xstrdup(*n);
            if (fs_kind(at) == FS_NONE && (!*rel || !is_cudnn_file(*n)))
                problem(pr, sub, "of the toolkit is missing from the view");
            free(sub);
            free(at);
        }
    strv_free(theirs);
    if (fs_list_dir(ctx, dir, &names) != CDM_OK)
        return;
    for (char **n = names; *n; n++) {
        char *at = path_join(dir, *n), *from_tk = tk ? path_join(tk, *n) : NULL;
        char *sub = *rel ? xasprintf("%s/%s", rel, *n) : xstrdup(*n);
        char *real = fs_realpath(at);
        if (fs_kind(at) == FS_DIR)
            check_links(ctx, at, from_tk, sub, pr);
        else if (!real)
            problem(pr, sub, "leads nowhere (its target was moved or removed)");
        free(real);
        free(sub);
        free(from_tk);
        free(at);
    }
    strv_free(names);
}

/* Each file of the install's folder src must be what dst/<same name> leads to. */
static void check_files(cdm_ctx *ctx, const char *src, const char *dst, const char *rel,
                        struct problems *pr)
{
    char **names = NULL;
    if (fs_list_dir(ctx, src, &names) != CDM_OK)
        return;
    for (char **n = names; *n; n++) {
        char *from = path_join(src, *n), *at = path_join(dst, *n);
        char *sub = xasprintf("%s/%s", rel, *n);
        if (fs_kind(from) == FS_DIR) {
            check_files(ctx, from, at, sub, pr);
        } else if (!link_same_file(from, at)) {
            char *what = xasprintf("is not the install's file '%s'", from);
            problem(pr, sub, what);
            free(what);
        }
        free(sub);
        free(at);
        free(from);
    }
    strv_free(names);
}

unsigned view_check(cdm_ctx *ctx, const struct cdm_install_info *in, const char *tk_real,
                    const char *name, view_problem_fn fn, void *arg)
{
    struct problems pr = {fn, arg, 0};
    char *view = store_view_path(ctx, name);
    if (fs_kind(view) != FS_DIR) {
        problem(&pr, view, "is missing; 'cdm link --toolkit' builds it again");
    } else {
        check_links(ctx, view, tk_real, "", &pr);
        struct mapping m[3];
        size_t count = mappings(in, view, m);
        for (size_t i = 0; i < count; i++) {
            char *src = path_join(in->path, m[i].src), *dst = path_join(view, m[i].dst);
            if (fs_is_dir_followed(src))
                check_files(ctx, src, dst, m[i].dst, &pr);
            free(src);
            free(dst);
        }
    }
    free(view);
    return pr.count;
}

/* An activation's view (shell_view_name) stays while a shell may use it: while its install
 * is installed and its toolkit there (its bin folder leads somewhere). Small (links only),
 * it is made again by the next activation once gone. */
static bool shells_view_kept(cdm_ctx *ctx, const char *dir, const char *name)
{
    char id[64];
    struct cdm_install_info in;
    char *path = path_join(dir, name);
    char *bin = path_join(path, "bin");
    bool kept = view_is_shells(name) && store_install_of(ctx, path, id, sizeof(id)) &&
                db_install_find(ctx, id, &in) == CDM_OK && fs_is_dir_followed(bin);
    free(bin);
    free(path);
    return kept;
}

int views_gc(cdm_ctx *ctx, unsigned *removed)
{
    char *dir = store_views_dir(ctx);
    char **names = NULL, **used = NULL;
    int rc = store_own_dir(ctx, dir, false); /* a link there: refused, nothing below deleted */
    if (!rc)
        rc = fs_list_dir(ctx, dir, &names);
    if (rc == CDM_ENOTFOUND) {
        free(dir);
        return CDM_OK;
    }
    if (!rc)
        rc = db_views_in_use(ctx, &used);
    for (char **n = names; !rc && n && *n; n++) {
        bool in_use = false;
        for (char **u = used; u && *u && !in_use; u++)
            in_use = !strcmp(*u, *n);
        if (in_use || shells_view_kept(ctx, dir, *n))
            continue;
        char *path = path_join(dir, *n);
        rc = fs_remove_tree(ctx, path);
        if (!rc && ctx->options.verbose)
            cdm_note(ctx, "removed the view '%s', which no project uses", path);
        if (!rc)
            (*removed)++;
        free(path);
    }
    strv_free(used);
    strv_free(names);
    free(dir);
    return rc;
}
