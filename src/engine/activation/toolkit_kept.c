/*
 * Activation never hides a CUDA toolkit. NVIDIA's installer points CUDA_PATH at the toolkit,
 * and torch.utils.cpp_extension, CuPy and CMake find nvcc and cudart through it (the manual
 * recipe copied cuDNN into the toolkit, so CUDA_PATH held both). A project whose link
 * records no toolkit would otherwise set CUDA_PATH to its cuDNN-only link. So when the
 * user's environment names a toolkit, or cdm finds one, CUDA_PATH and CUDA_HOME name a view
 * of that toolkit with the project's cuDNN on top (view.h, the views `cdm link --toolkit`
 * makes). Where no view can be made (a store this user cannot write, a busy store, a pair
 * the compatibility tables rule out), a toolkit the user named stays in CUDA_PATH as it
 * was; the project's cuDNN is then reached through PATH (or LD_LIBRARY_PATH) and CUDNN_PATH.
 * Without a toolkit, CUDA_PATH is the link, as before.
 */
#include "activate_toolkit.h"
#include "base/error.h"
#include "compat.h"
#include "platform/fs.h"
#include "store_paths.h"
#include "toolkit.h"
#include "version.h"
#include "view.h"

#include <stdlib.h>
#include <string.h>

/* The value name had before any activation: its saved form ("set:VALUE" or "unset") while
 * one is on, else the variable itself. malloc'd; NULL when unset or empty. */
static char *user_value(const char *name, const char *saved_name)
{
    char *saved = fs_getenv(saved_name);
    char *value = NULL;
    if (saved && str_starts_with(saved, "set:"))
        value = xstrdup(saved + 4);
    else if (!saved)
        value = fs_getenv(name);
    free(saved);
    if (value && !*value) {
        free(value);
        value = NULL;
    }
    return value;
}

/* Whether path is inside folder (both resolved). */
static bool resolved_within(const char *path, const char *folder)
{
    char *real = fs_realpath(path), *top = fs_realpath(folder);
    bool inside = real && top && path_within(real, top);
    free(real);
    free(top);
    return inside;
}

/* The toolkit in dir, unless dir is cdm's own (the store, the project): false when none. */
static bool toolkit_at(cdm_ctx *ctx, const char *dir, const char *project, const char *why,
                       struct cdm_toolkit *out)
{
    struct toolkit_info info = {0};
    char *real = NULL;
    bool ok = !resolved_within(dir, cdm_root(ctx)) && !resolved_within(dir, project) &&
              (real = fs_realpath(dir)) && toolkit_in_dir(dir, why, &info) &&
              copy_str(out->version, sizeof(out->version), info.version) &&
              copy_str(out->path, sizeof(out->path), dir) &&
              copy_str(out->real, sizeof(out->real), real) &&
              copy_str(out->found_by, sizeof(out->found_by), why);
    toolkit_free(&info);
    free(real);
    return ok;
}

/* The toolkit the user's own CUDA_PATH, then CUDA_HOME, named before activation. */
static bool named_toolkit(cdm_ctx *ctx, const char *project, struct cdm_toolkit *out)
{
    static const char *const vars[][2] = {{"CUDA_PATH", "CDM_SAVED_CUDA_PATH"},
                                          {"CUDA_HOME", "CDM_SAVED_CUDA_HOME"}};
    bool found = false;
    for (size_t i = 0; i < CDM_ARRAY_LEN(vars) && !found; i++) {
        char *dir = user_value(vars[i][0], vars[i][1]);
        found = dir && toolkit_at(ctx, dir, project, vars[i][0], out);
        free(dir);
    }
    return found;
}

/* Whether the compatibility tables allow in with tk; why says what rules it out. */
static bool pair_allowed(const struct cdm_install_info *in, const struct cdm_toolkit *tk, char *why,
                         size_t size)
{
    return compat_install_toolkit(in->version, in->cuda, tk->version, why, size) != COMPAT_FAIL;
}

/* The first toolkit cdm finds here (cdm_toolkits' order) that the tables allow with in. */
static bool found_toolkit(cdm_ctx *ctx, const struct cdm_install_info *in, const char *project,
                          struct cdm_toolkit *out)
{
    struct cdm_toolkit *all = NULL;
    size_t n = 0;
    bool found = false;
    char why[256];
    if (cdm_toolkits(ctx, &all, &n) != CDM_OK)
        return false;
    for (size_t i = 0; i < n && !found; i++)
        found = toolkit_at(ctx, all[i].path, project, all[i].found_by, out) &&
                pair_allowed(in, out, why, sizeof(why));
    free(all);
    return found;
}

/* The view of in over tk, made when it is not there whole: under the store's lock, taken
 * without waiting (the prompt hook runs this). false, with the reason in the context, when
 * it cannot be made now. */
static bool view_made(cdm_ctx *ctx, const struct cdm_install_info *in, const struct cdm_toolkit *tk,
                      const char *name)
{
    char *path = store_view_path(ctx, name);
    bool whole = fs_kind(path) == FS_DIR && !view_check(ctx, in, tk->real, name, NULL, NULL);
    free(path);
    if (whole)
        return true;
    if (ctx->config.shared_read_only) {
        cdm_error_set(ctx, CDM_EUNSUPPORTED, "the store '%s' is shared read-only", cdm_root(ctx));
        return false;
    }
    char *lock_path = store_lock_path(ctx);
    struct fs_lock_handle *lock = NULL;
    int rc = fs_lock_try(ctx, lock_path, &lock);
    free(lock_path);
    if (rc == CDM_EBUSY)
        cdm_error_set(ctx, CDM_EBUSY, "another cdm is changing the store '%s'", cdm_root(ctx));
    if (!rc)
        rc = view_ensure(ctx, in, tk->real, name);
    fs_unlock(lock);
    return rc == CDM_OK;
}

/* Whether a toolkit no variable names is looked for: CDM_FIND_TOOLKIT (false, no, off or 0:
 * not), which overrides [activate] find_toolkit, as CDM_FETCH_BASE overrides [fetch] base. */
static bool search_allowed(const cdm_ctx *ctx)
{
    char *env = fs_getenv("CDM_FIND_TOOLKIT");
    bool allowed = !ctx->config.activate_named_toolkit_only;
    if (env && *env) {
        static const char *const off[] = {"false", "no", "off", "0"};
        allowed = true;
        for (size_t i = 0; i < CDM_ARRAY_LEN(off); i++)
            allowed = allowed && strcmp(env, off[i]) != 0;
    }
    free(env);
    return allowed;
}

/* a's CUDA_PATH the view of in over tk; false, with why said, when it cannot be. */
static bool use_view(cdm_ctx *ctx, const struct cdm_install_info *in, const struct cdm_toolkit *tk,
                     struct cdm_activation *a, char *why, size_t size)
{
    char *name = shell_view_name(in->id, tk->version, tk->real);
    char *path = store_view_path(ctx, name);
    bool made = view_made(ctx, in, tk, name);
    bool used = made && copy_str(a->cuda_path, sizeof(a->cuda_path), path);
    if (used) {
        struct view_dirs d = view_dirs(path, fs_platform_is_windows(in->platform));
        COPY_STR_ARRAY(a->toolkit, tk->version);
        COPY_STR_ARRAY(a->cuda_bin, d.bin);
    } else if (made) {
        snprintf(why, size, "its view's path '%s' is too long", path);
    } else {
        snprintf(why, size, "no view of it with %s could be made (%s)", in->id,
                 cdm_error_message(ctx));
    }
    free(path);
    free(name);
    return used;
}

void activation_keep_toolkit(cdm_ctx *ctx, const struct cdm_install_info *in,
                             struct cdm_activation *a)
{
    if (*a->toolkit)
        return; /* the link leads to a view of the project's own toolkit */
    struct cdm_toolkit tk;
    bool named = named_toolkit(ctx, a->project, &tk);
    if (!named && (!search_allowed(ctx) || !found_toolkit(ctx, in, a->project, &tk)))
        return;
    char why[256];
    if (pair_allowed(in, &tk, why, sizeof(why)) && use_view(ctx, in, &tk, a, why, sizeof(why)))
        return;
    if (!named)
        return; /* a toolkit merely found, whose view cannot be made: as without one */
    /* The user's toolkit stays where CUDA_PATH had it; the project's cuDNN comes first on
     * the loader's list. */
    bool windows = fs_platform_is_windows(in->platform);
    cdm_warn(ctx,
             "CUDA_PATH keeps the CUDA %s toolkit '%s': %s; the project's cuDNN %s is found "
             "through %s and CUDNN_PATH, not through CUDA_PATH",
             tk.version, tk.path, why, in->id, windows ? "PATH" : "LD_LIBRARY_PATH");
    struct view_dirs d = view_dirs(tk.path, windows);
    COPY_STR_ARRAY(a->cuda_path, tk.path);
    COPY_STR_ARRAY(a->toolkit, tk.version);
    COPY_STR_ARRAY(a->cuda_bin, d.bin);
}
