/* The files of an attachment: moved aside one by one, each replaced by its own link. */
#include "attach_files.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "frameworks.h"
#include "pyenv.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

/* A name the loader asks for: libcudnn*.so.<major> (a wheel's files, a conda package's
 * soname links; not the .so development link or the fully versioned file), cudnn*.dll. */
static bool loader_name(const char *name, bool windows)
{
    if (windows)
        return str_starts_with_icase(name, "cudnn") && str_ends_with_icase(name, ".dll");
    const char *so = strstr(name, ".so.");
    if (!str_starts_with(name, "libcudnn") || !so || !so[4])
        return false;
    for (const char *p = so + 4; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

/* The entry is the environment's own file: a regular file, or on POSIX a link to a name
 * beside it (conda's libcudnn.so.9 -> libcudnn.so.9.1.0). */
static bool own_entry(cdm_ctx *ctx, const char *path, bool windows)
{
    enum fs_kind kind = fs_kind(path);
    if (kind == FS_FILE)
        return true;
    if (kind != FS_LINK || windows)
        return false;
    enum link_kind lk = LINK_FOREIGN;
    char *target = NULL;
    bool beside = link_read(ctx, path, &lk, &target) == CDM_OK && lk == LINK_OURS && target &&
                  !strchr(target, '/');
    free(target);
    return beside;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int attach_wheel_files(cdm_ctx *ctx, const char *folder, bool windows, char ***names)
{
    char **all = NULL;
    *names = NULL;
    int rc = fs_list_dir(ctx, folder, &all);
    if (rc)
        return rc;
    size_t n = 0, count = 0;
    while (all[n])
        n++;
    char **v = xcalloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        char *path = path_join(folder, all[i]);
        if (loader_name(all[i], windows) && own_entry(ctx, path, windows))
            v[count++] = xstrdup(all[i]);
        free(path);
    }
    qsort(v, count, sizeof(*v), by_name);
    strv_free(all);
    *names = v;
    return CDM_OK;
}

bool attach_file_is_ours(cdm_ctx *ctx, const char *folder, const char *target, const char *name,
                         bool windows)
{
    char *path = path_join(folder, name), *want = path_join(target, name);
    enum fs_kind kind = fs_kind(path);
    /* POSIX: only a symbolic link is cdm's (a regular file is the environment's own);
     * Windows: a hard link or a file symbolic link to the project's file */
    bool ours = (kind == FS_LINK || (windows && kind == FS_FILE)) && link_same_file(path, want);
    if (!ours && kind == FS_LINK) {
        /* a link to a name the project's install lacks leads nowhere: compare its text */
        enum link_kind lk = LINK_FOREIGN;
        char *seen = NULL;
        if (link_read(ctx, path, &lk, &seen) == CDM_OK)
            ours = lk == LINK_OURS && seen && !strcmp(seen, want);
        free(seen);
    }
    free(want);
    free(path);
    return ours;
}

bool attach_is_folder_link(cdm_ctx *ctx, const struct db_attachment *a)
{
    enum link_kind kind = LINK_FOREIGN;
    char *seen = NULL;
    int rc = link_read(ctx, a->folder, &kind, &seen);
    free(seen);
    return rc == CDM_OK && kind == LINK_OURS;
}

/* Put one kept file back, or drop it where the environment has its own. */
static int restore_one(cdm_ctx *ctx, const struct db_attachment *a, const char *name,
                       bool wheel_changed, bool windows, unsigned *restored, unsigned *dropped)
{
    char *path = path_join(a->folder, name), *kept = path_join(a->original, name);
    int rc = CDM_OK;
    fs_clean_stale_temps(ctx, a->folder, name); /* a switch's link a kill left beside it */
    if (attach_file_is_ours(ctx, a->folder, a->target, name, windows)) {
        rc = fs_remove_file(ctx, path);
        fs_crash_point("detach-unlinked");
    }
    if (!rc && !wheel_changed && fs_kind(path) == FS_NONE) {
        if (!(rc = fs_rename(ctx, kept, path)))
            (*restored)++;
    } else if (!rc) {
        /* the environment holds its own file of that name, or its wheel is another now */
        if (!(rc = fs_remove_file(ctx, kept)))
            (*dropped)++;
    }
    free(kept);
    free(path);
    return rc;
}

int attach_restore(cdm_ctx *ctx, const struct db_attachment *a, bool wheel_changed, bool windows,
                   unsigned *restored, unsigned *dropped)
{
    *restored = *dropped = 0;
    if (!a->original[0] || fs_kind(a->original) != FS_DIR) {
        /* nothing was kept yet: only links that name no kept file could be there, and
         * cdm makes a link only after its file is kept */
        return CDM_OK;
    }
    char **names = NULL;
    int rc = fs_list_dir(ctx, a->original, &names);
    for (size_t i = 0; !rc && names[i]; i++)
        rc = restore_one(ctx, a, names[i], wheel_changed, windows, restored, dropped);
    strv_free(names);
    if (!rc) {
        fs_sync_dir(a->folder);
        char **left = NULL;
        if (fs_list_dir(ctx, a->original, &left) == CDM_OK && !left[0])
            rc = fs_remove_tree(ctx, a->original);
        strv_free(left);
    }
    return rc;
}

int attach_kept_check(cdm_ctx *ctx, const struct db_attachment *a, bool windows)
{
    enum fs_kind kind = a->original[0] ? fs_kind(a->original) : FS_NONE;
    if (kind == FS_DIR)
        return CDM_OK;
    if (kind != FS_NONE)
        return cdm_error_set(ctx, CDM_EIO,
                             "cannot detach '%s': '%s', where cdm kept the wheel's own files, "
                             "is not a folder now (a link?); cdm does not follow it and changed "
                             "nothing: put the folder back, or reinstall the wheel (%s) with "
                             "pip install --force-reinstall --no-deps, and detach again",
                             a->venv, a->original, a->wheel[0] ? a->wheel : "nvidia-cudnn-cuNN");
    char **names = NULL;
    unsigned ours = 0;
    struct saved_error saved = error_save(ctx);
    if (fs_list_dir(ctx, a->folder, &names) == CDM_OK)
        for (char **n = names; *n; n++)
            ours += attach_file_is_ours(ctx, a->folder, a->target, *n, windows);
    strv_free(names);
    error_restore(ctx, &saved);
    if (!ours) /* nothing kept, nothing of cdm's there: the environment has its own files */
        return CDM_OK;
    return cdm_error_set(ctx, CDM_ENOTFOUND,
                         "cannot detach '%s': the wheel's own files that cdm kept in '%s' are "
                         "gone, and %u of cdm's links are still in '%s'; reinstall the wheel "
                         "(%s) with pip install --force-reinstall --no-deps, and detach again",
                         a->venv, a->original, ours, a->folder,
                         a->wheel[0] ? a->wheel : "nvidia-cudnn-cuNN");
}

/* "nvidia_cudnn_cu13 9.19.0.56", as the record keeps it; "" without a dist-info. */
void attach_wheel_text(const struct py_dist *dist, char *out, size_t size)
{
    if (dist->name[0])
        snprintf(out, size, "%s %s", dist->name, dist->version);
    else
        out[0] = '\0';
}

/* What changed in the environment since the attach a, in words into why ("" when nothing):
 * pip or uv reinstalled, upgraded or removed the wheel, or replaced some of cdm's links.
 * *wheel_changed: the wheel's dist-info is no longer the recorded one. */
void attach_drift(cdm_ctx *ctx, const struct db_attachment *a, const struct py_dist *dist,
                  bool *wheel_changed, char *why, size_t size)
{
    char now[200];
    attach_wheel_text(dist, now, sizeof(now));
    why[0] = '\0';
    *wheel_changed = strcmp(now, a->wheel) != 0;
    if (*wheel_changed) {
        snprintf(why, size, "the wheel is %s%s now and was %s when attached", now[0] ? "" : "gone",
                 now, a->wheel[0] ? a->wheel : "of unknown version");
        return;
    }
    if (!a->original[0])
        return; /* attached by its DLL folders hook alone: no file of the wheel's was kept */
    char **kept = NULL;
    if (fs_list_dir(ctx, a->original, &kept) != CDM_OK) {
        snprintf(why, size, "the wheel's own files that cdm kept are gone");
        return;
    }
    size_t total = 0, replaced = 0;
    for (; kept[total]; total++)
        if (!attach_file_is_ours(ctx, a->folder, a->target, kept[total], fs_host_is_windows()))
            replaced++;
    if (replaced)
        snprintf(why, size,
                 "%zu of its %zu cuDNN files are no longer cdm's links (pip or uv "
                 "reinstalled them)",
                 replaced, total);
    strv_free(kept);
}

/* The distribution whose own cuDNN version is the reference where no framework pins one:
 * the wheel or the conda package; not torch, whose version says nothing of its DLLs'. */
const char *attach_target_sub(const char *lib_dir, const char *bin_dir)
{
    return fs_host_is_windows() ? bin_dir : lib_dir;
}

const struct py_dist *attach_reference(const struct py_dist *dist, enum py_cudnn_origin origin)
{
    return origin == PY_CUDNN_TORCH_LIB || origin == PY_CUDNN_FRAMEWORK_DLLS ? NULL : dist;
}

/* Would the environment's frameworks accept the install? why gets the first refusal. Each
 * framework of the rules' table (frameworks.h) that is there is asked; where none of them
 * can decide, the wheel's (or the conda package's) own version is the reference: its major,
 * its minor or newer, and its CUDA major. */
bool attach_suits(char *const *sites, const struct py_dist *wheel,
                  const struct cdm_install_info *in, char *why, size_t size)
{
    struct version v;
    if (!version_parse(in->version, &v) || v.count < 2)
        return true;
    struct fw_verdict *verdicts = NULL;
    size_t n = fw_check(sites, in, &verdicts);
    const struct fw_verdict *bad = fw_first_refusal(verdicts, n);
    bool decided = false;
    for (size_t i = 0; i < n; i++)
        decided = decided || verdicts[i].decided;
    if (bad)
        snprintf(why, size, "%s", bad->problem);
    free(verdicts);
    if (decided || bad)
        return !bad;
    struct version w;
    if (!wheel || !wheel->name[0] || !version_parse(wheel->version, &w) || w.count < 2)
        return true;
    char ref[200];
    snprintf(ref, sizeof(ref), "the %s %s",
             strcmp(wheel->name, "cudnn") ? "wheel" : "conda package", wheel->name);
    const char *cu = strstr(wheel->name, "_cu");
    int cuda = cu ? atoi(cu + 3) : 0;
    if (v.part[0] != w.part[0])
        snprintf(why, size, "%s is cuDNN %d.%d and %s is cuDNN %d, another major", ref, w.part[0],
                 w.part[1], in->id, v.part[0]);
    else if (v.part[1] < w.part[1])
        snprintf(why, size, "%s is cuDNN %d.%d and %s is older (%d.%d)", ref, w.part[0], w.part[1],
                 in->id, v.part[0], v.part[1]);
    else if (cuda && in->cuda && cuda != in->cuda)
        snprintf(why, size, "%s is the CUDA %d build of cuDNN and %s is built for CUDA %d", ref,
                 cuda, in->id, in->cuda);
    else
        return true;
    return false;
}

/* The names of names that folder dir lacks, quoted and joined into missing; how many. */
size_t attach_missing_names(char *const *names, const char *dir, struct strbuf *missing)
{
    size_t count = 0;
    for (size_t i = 0; names[i]; i++) {
        char *want = path_join(dir, names[i]);
        char *real = fs_realpath(want);
        if (!real && ++count)
            sb_addf(missing, "%s'%s'", missing->len ? ", " : "", names[i]);
        free(real);
        free(want);
    }
    return count;
}

void attach_prune_empty(const char *folder, const char *venv)
{
    char *dir = xstrdup(folder);
    const char *rest;
    while ((rest = path_below(dir, venv)) && *rest &&
           strcmp(path_basename(dir), "site-packages") != 0 && fs_remove_if_empty_dir(dir)) {
        char *up = path_dirname(dir);
        free(dir);
        dir = up;
    }
    free(dir);
}
