/* Pair views: one link that holds two cuDNN majors (view.h). */
#include "store_paths.h"
#include "view.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <stdlib.h>
#include <string.h>

/* Link each entry of src into the folder at (made), or, with only_missing, each entry at
 * lacks a name for (a folder of src is left out then: the library folders are flat). */
static int link_entries(cdm_ctx *ctx, const char *at, const char *src, bool only_missing)
{
    char **names = NULL;
    int rc = only_missing ? CDM_OK : fs_mkdir(ctx, at);
    if (!rc)
        rc = fs_list_dir(ctx, src, &names);
    for (char **n = names; !rc && n && *n; n++) {
        char *path = path_join(at, *n), *target = path_join(src, *n);
        bool dir = fs_is_dir_followed(target);
        if (!only_missing || (fs_kind(path) == FS_NONE && !dir))
            rc = link_view_entry(ctx, target, path, dir);
        free(path);
        free(target);
    }
    strv_free(names);
    return rc;
}

struct pair {
    const struct cdm_install_info *primary, *also;
};

/* The library folders that take the also's files: (primary's, also's), "" where none. */
static size_t pair_dirs(const struct pair *p, const char *dirs[2][2])
{
    size_t n = 0;
    dirs[n][0] = p->primary->lib_dir;
    dirs[n++][1] = p->also->lib_dir;
    if (*p->primary->bin_dir && *p->also->bin_dir) {
        dirs[n][0] = p->primary->bin_dir;
        dirs[n++][1] = p->also->bin_dir;
    }
    return n;
}

static int build_pair(cdm_ctx *ctx, void *arg, const char *at)
{
    const struct pair *p = arg;
    const char *dirs[2][2];
    size_t n = pair_dirs(p, dirs);
    int rc = link_entries(ctx, at, p->primary->path, false);
    for (size_t i = 0; i < n && !rc; i++) {
        char *src = path_join(p->also->path, dirs[i][1]), *dst = path_join(at, dirs[i][0]);
        if (fs_is_dir_followed(src) &&
            !(rc = view_real_folder(ctx, at, p->primary->path, dirs[i][0], true)))
            rc = link_entries(ctx, dst, src, true);
        free(src);
        free(dst);
    }
    return rc;
}

/* Each file of src reached at dst/<its name>, or (shadow) one of that name there from the
 * primary; how many are not. */
static unsigned check_reached(cdm_ctx *ctx, const char *src, const char *dst, const char *shadow,
                              view_problem_fn fn, void *arg)
{
    char **names = NULL;
    unsigned bad = 0;
    if (fs_list_dir(ctx, src, &names) != CDM_OK)
        return 0;
    for (char **n = names; *n; n++) {
        char *from = path_join(src, *n), *at = path_join(dst, *n);
        char *mine = shadow ? path_join(shadow, *n) : NULL;
        bool ok = fs_is_dir_followed(from) || link_same_file(from, at) ||
                  (mine && fs_kind(mine) != FS_NONE && link_same_file(mine, at));
        if (!ok && ++bad && fn)
            fn(arg, at, "does not lead to its install's file");
        free(mine);
        free(at);
        free(from);
    }
    strv_free(names);
    return bad;
}

unsigned pair_view_check(cdm_ctx *ctx, const struct cdm_install_info *primary,
                         const struct cdm_install_info *also, const char *name, view_problem_fn fn,
                         void *arg)
{
    char *view = store_view_path(ctx, name);
    unsigned bad = 0;
    if (fs_kind(view) != FS_DIR) {
        if (fn)
            fn(arg, view, "is missing; 'cdm link' builds it again");
        free(view);
        return 1;
    }
    struct pair p = {primary, also};
    const char *dirs[2][2];
    size_t n = pair_dirs(&p, dirs);
    for (size_t i = 0; i < n; i++) {
        char *mine = path_join(primary->path, dirs[i][0]),
             *theirs = path_join(also->path, dirs[i][1]);
        char *dst = path_join(view, dirs[i][0]);
        bad += check_reached(ctx, mine, dst, NULL, fn, arg);
        bad += check_reached(ctx, theirs, dst, mine, fn, arg);
        free(dst);
        free(theirs);
        free(mine);
    }
    free(view);
    return bad;
}

int pair_view_ensure(cdm_ctx *ctx, const struct cdm_install_info *primary,
                     const struct cdm_install_info *also, const char *name)
{
    char *final = store_view_path(ctx, name);
    bool whole = fs_kind(final) == FS_DIR && !pair_view_check(ctx, primary, also, name, NULL, NULL);
    free(final);
    struct pair p = {primary, also};
    return whole ? CDM_OK : view_place(ctx, name, build_pair, &p);
}
