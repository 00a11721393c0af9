#include "store_paths.h"
#include "platform/fs.h"
#include "platform/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *store_root_choose(const char *given, const char *configured)
{
    const char *root = given ? given : configured;
    char *fallback = root ? NULL : fs_default_root();
    char *absolute = fs_absolute(root ? root : fallback);
    free(fallback);
    return absolute;
}

char *store_index_path(const cdm_ctx *ctx)
{
    return path_join(ctx->root, "cdm.db");
}

char *store_lock_path(const cdm_ctx *ctx)
{
    return path_join(ctx->root, ".lock");
}

char *store_lock_holder_path(const cdm_ctx *ctx)
{
    return path_join(ctx->root, ".lock-holder");
}

char *store_staging_dir(const cdm_ctx *ctx)
{
    return path_join(ctx->root, ".staging");
}

static char *staging_name(const cdm_ctx *ctx, const char *name)
{
    char *dir = store_staging_dir(ctx);
    char *path = path_join(dir, name);
    free(dir);
    return path;
}

char *store_staging_path(const cdm_ctx *ctx, const char *id, const char *suffix)
{
    char *name = xasprintf("%s.%s", id, suffix);
    char *path = staging_name(ctx, name);
    free(name);
    return path;
}

char *store_staging_tmp(const cdm_ctx *ctx, const char *id)
{
    char *name = xasprintf("%s.%llu.tmp", id, (unsigned long long)fs_process_id());
    char *path = staging_name(ctx, name);
    free(name);
    return path;
}

char *store_staging_id(const char *name, const char **suffix)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return NULL;
    *suffix = dot + 1;
    size_t n = (size_t)(dot - name);
    if (!strcmp(dot + 1, "tmp")) {
        while (n > 0 && name[n - 1] != '.')
            n--;
        if (n == 0)
            return NULL;
        n--;
    }
    return xstrndup(name, n);
}

char *store_install_path(const cdm_ctx *ctx, const char *id)
{
    return path_join(ctx->root, id);
}

char *store_downloads_dir(const cdm_ctx *ctx)
{
    return path_join(ctx->root, "downloads");
}

char *state_lock_path(const cdm_ctx *ctx)
{
    return xasprintf("%s.lock", ctx->state_path);
}

char *state_attached_dir(const cdm_ctx *ctx, long long n)
{
    char *state_dir = path_dirname(ctx->state_path);
    char *base = path_join(state_dir, ".attached");
    free(state_dir);
    char *num = xasprintf("%lld", n);
    char *dir = path_join(base, num);
    free(num);
    free(base);
    return dir;
}

char *store_views_dir(const cdm_ctx *ctx)
{
    return path_join(ctx->root, "views");
}

char *store_view_path(const cdm_ctx *ctx, const char *name)
{
    char *dir = store_views_dir(ctx);
    char *path = path_join(dir, name);
    free(dir);
    return path;
}

char *store_deployed_dir(const cdm_ctx *ctx)
{
    return path_join(ctx->root, ".deployed");
}

char *store_deployed_object(const cdm_ctx *ctx, const char *sha256)
{
    char *base = store_deployed_dir(ctx);
    char *path = path_join(base, sha256);
    free(base);
    return path;
}

#define VIEW_TOOLKIT "+cuda"

char *view_name(const char *install_id, const char *tk_version, const char *tk_real)
{
    char hex[65];
    sha256_hex_of(tk_real, strlen(tk_real), hex);
    return xasprintf("%s" VIEW_TOOLKIT "%s-%.8s", install_id, tk_version, hex);
}

char *shell_view_name(const char *install_id, const char *tk_version, const char *tk_real)
{
    char *name = view_name(install_id, tk_version, tk_real);
    char *shell = xasprintf("%s" SHELL_VIEW_SUFFIX, name);
    free(name);
    return shell;
}

bool view_is_shells(const char *name)
{
    return store_is_view_name(name) && str_ends_with(name, SHELL_VIEW_SUFFIX);
}

bool store_is_view_name(const char *path)
{
    return strchr(path_basename(path), '+') != NULL;
}

void view_toolkit_version(const char *name, char *out, size_t size)
{
    const char *v = strstr(name, VIEW_TOOLKIT);
    const char *dash = v ? strrchr(v, '-') : NULL;
    size_t skip = strlen(VIEW_TOOLKIT);
    out[0] = '\0';
    if (v && dash && (size_t)(dash - v) - skip < size)
        snprintf(out, size, "%.*s", (int)(dash - v - skip), v + skip);
}

char *pair_view_name(const char *primary_id, const char *also_id)
{
    return xasprintf("%s+%s", primary_id, also_id);
}

bool pair_view_also(const char *path, char *also, size_t size)
{
    const char *plus = strchr(path_basename(path), '+');
    also[0] = '\0';
    /* a toolkit's view goes on with "cuda", an install's id with its version's digits */
    if (!plus || plus[1] < '0' || plus[1] > '9' || !copy_str(also, size, plus + 1)) {
        also[0] = '\0';
        return false;
    }
    return true;
}

bool cdm_pair_view_also(const char *view, char *also, size_t size)
{
    return pair_view_also(view ? view : "", also, size);
}

bool store_install_of(const cdm_ctx *ctx, const char *path, char *id, size_t size)
{
    id[0] = '\0';
    char *parent = path_dirname(path);
    char *real_parent = fs_realpath(parent);
    char *real_root = fs_realpath(ctx->root);
    char *views = real_root ? path_join(real_root, "views") : NULL;
    const char *name = path_basename(path);
    /* A view's name starts with its install's id */
    bool in_views = real_parent && views && !strcmp(real_parent, views) && store_is_view_name(name);
    bool found = in_views || (real_parent && real_root && !strcmp(real_parent, real_root));
    for (size_t i = 0; !found && real_parent && i < ctx->config.upstream_count; i++) {
        char *up = fs_realpath(ctx->config.upstreams[i]); /* an upstream's version folder */
        found = up && !strcmp(real_parent, up);
        free(up);
    }
    found = found && copy_str(id, size, name);
    if (found && in_views)
        *strchr(id, '+') = '\0';
    free(views);
    if (!found)
        id[0] = '\0';
    free(real_root);
    free(real_parent);
    free(parent);
    return found;
}

bool store_path_is_install(const cdm_ctx *ctx, const char *path, const char *id)
{
    char *want = store_install_path(ctx, id);
    bool same = !strcmp(path, want) || fs_same_path(path, want);
    free(want);
    return same;
}

int store_move_install(cdm_ctx *ctx, const char *from, const char *to)
{
    int rc = fs_dir_set_writable(ctx, from, true);
    if (!rc)
        rc = fs_rename(ctx, from, to);
    /* sealed again wherever it is: a failure above keeps its own message */
    struct saved_error kept = error_save(ctx);
    fs_dir_set_writable(ctx, rc ? from : to, false);
    error_restore(ctx, &kept);
    return rc;
}

static int refuse_own(cdm_ctx *ctx, const char *path, enum fs_kind kind, const char *want)
{
    static const char *const kinds[] = {[FS_LINK] = "a link",
                                        [FS_DIR] = "a folder",
                                        [FS_FILE] = "a file",
                                        [FS_OTHER] = "a device, fifo or socket",
                                        [FS_NONE] = "nothing"};
    return cdm_error_set(ctx, CDM_EIO,
                         "cannot use '%s': it is %s where cdm keeps a %s of its own, and cdm "
                         "follows no link there; move it away, then run the command again",
                         path, kinds[kind], want);
}

int store_own_dir(cdm_ctx *ctx, const char *path, bool make)
{
    enum fs_kind kind = fs_kind(path);
    if (kind == FS_NONE)
        return make ? fs_mkdir(ctx, path) : CDM_ENOTFOUND;
    return kind == FS_DIR ? CDM_OK : refuse_own(ctx, path, kind, "folder");
}

int store_own_file(cdm_ctx *ctx, const char *path)
{
    enum fs_kind kind = fs_kind(path);
    return kind == FS_NONE || kind == FS_FILE ? CDM_OK : refuse_own(ctx, path, kind, "file");
}
