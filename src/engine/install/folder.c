/* Where cuDNN lies in a folder on the disk (folder.h). */
#include "conda.h"
#include "folder.h"
#include "pyenv.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool folder_is_cudnn_file(const char *name)
{
    return str_starts_with(name, "libcudnn") ||
           (str_starts_with_icase(name, "cudnn") &&
            (str_ends_with(name, ".h") || str_ends_with_icase(name, ".dll") ||
             str_ends_with_icase(name, ".lib")));
}

/* The folders of root that hold cuDNN's files, and where they go in the install. */
static const char *const file_dirs[][2] = {
    {"include", "include"},
    {"lib", "lib"},
    {"lib64", "lib64"},
    {"lib/x64", "lib/x64"},
    {"bin", "bin"},
    {"bin/x64", "bin/x64"},
    /* NVIDIA's Debian and RPM packages under /usr: the multiarch folders */
    {"lib/x86_64-linux-gnu", "lib"},
    {"lib/aarch64-linux-gnu", "lib"},
    {"include/x86_64-linux-gnu", "include"},
    {"include/aarch64-linux-gnu", "include"},
};

/* A name goes into the install once: the first folder that has it gives it. */
static bool taken_already(const struct folder_file *files, size_t count, const char *to)
{
    for (size_t i = 0; i < count; i++)
        if (!strcmp(files[i].to, to))
            return true;
    return false;
}

/* The files to take: each folder's cuDNN names (the installer's CUDA folder inside). */
void folder_list(const struct folder *f, struct folder_file **files, size_t *count)
{
    for (size_t d = 0; d < CDM_ARRAY_LEN(file_dirs); d++) {
        char *from = xstrdup(file_dirs[d][0]);
        if (f->sub) { /* bin/12.9/x64, include/12.9 */
            const char *slash = strchr(from, '/');
            char *with = slash ? xasprintf("%.*s/%s%s", (int)(slash - from), from, f->sub, slash)
                               : xasprintf("%s/%s", from, f->sub);
            free(from);
            from = with;
        }
        char *dir = path_join(f->root, from);
        char **names = fs_list_names(dir);
        for (char **n = names; n && *n; n++) {
            char *path = path_join(dir, *n);
            char *to = xasprintf("%s/%s", file_dirs[d][1], *n);
            if (folder_is_cudnn_file(*n) && fs_kind(path) != FS_DIR &&
                !taken_already(*files, *count, to)) {
                *files = xrealloc(*files, (*count + 1) * sizeof(**files));
                (*files)[(*count)++] = (struct folder_file){xasprintf("%s/%s", from, *n), to};
                to = NULL;
            }
            free(to);
            free(path);
        }
        strv_free(names);
        free(dir);
        free(from);
    }
}

bool folder_is_version_header(const char *path)
{
    const char *base = path_basename(path);
    return str_starts_with(base, "cudnn_version") || !strcmp(base, "cudnn.h") ||
           (str_starts_with(base, "cudnn_v") && str_ends_with(base, ".h"));
}

void folder_files_free(struct folder_file *files, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(files[i].from);
        free(files[i].to);
    }
    free(files);
}

/* The wheel's dist-info beside site/nvidia/cudnn, read; none is no error (a copy). */
static int read_wheel_beside(cdm_ctx *ctx, const char *site, struct folder *f)
{
    struct py_dist dist;
    if (!py_find_dist(site, "nvidia-cudnn-cu", false, &dist))
        return CDM_OK;
    int rc = wheel_read_installed(ctx, dist.path, &f->wheel);
    f->has_wheel = !rc;
    f->record = xstrdup("nvidia/cudnn/");
    f->what = "the Python environment's wheel";
    return rc;
}

/* A conda environment's cudnn package, by its record in prefix/conda-meta: its version,
 * CUDA major and platform, and its files' hashes, as a wheel's dist-info gives them. None
 * is no error. */
static int read_conda_beside(cdm_ctx *ctx, const char *prefix, const char *below, struct folder *f)
{
    char *meta = path_join(prefix, "conda-meta");
    char **names = fs_list_names(meta);
    int rc = CDM_OK;
    for (char **n = names; n && *n && !f->has_wheel && !rc; n++) {
        if ((!str_starts_with(*n, "cudnn-") && !str_starts_with(*n, "libcudnn-")) ||
            !str_ends_with(*n, ".json"))
            continue;
        struct conda_info c;
        char *path = path_join(meta, *n);
        if (!(rc = conda_read_installed(ctx, path, &c))) {
            struct wheel_info *w = &f->wheel;
            copy_text(w->dist, sizeof(w->dist), c.name);
            w->version = c.version, w->cuda_major = c.cuda_major;
            copy_text(w->platform, sizeof(w->platform), c.platform);
            /* its rows, the record of a wheel's files reads the same */
            w->files = c.files;
            memset(&c.files, 0, sizeof(c.files));
            f->has_wheel = f->conda = true;
            f->record = xstrdup(below);
            f->what = "the conda environment's package";
        }
        conda_info_free(&c);
        free(path);
    }
    strv_free(names);
    free(meta);
    return rc;
}

static bool has_header_in(const char *inc)
{
    char *a = path_join(inc, "cudnn_version.h"), *b = path_join(inc, "cudnn.h");
    bool found = fs_kind(a) != FS_NONE || fs_kind(b) != FS_NONE;
    free(a);
    free(b);
    return found;
}

/* dir/include (or include/<sub>, or a multiarch include/<triplet> under /usr) holds a
 * version header. */
static bool has_header(const char *dir, const char *sub)
{
    const char *const places[] = {"include", "include/x86_64-linux-gnu",
                                  "include/aarch64-linux-gnu"};
    bool found = false;
    for (size_t i = 0; i < CDM_ARRAY_LEN(places) && !found && !(sub && i); i++) {
        char *inc = sub ? xasprintf("%s/include/%s", dir, sub) : path_join(dir, places[i]);
        found = has_header_in(inc);
        free(inc);
    }
    return found;
}

/* The installer's tree: include/<N.M>/; the one of CUDA cuda (0: the only one). */
static int installer_sub(cdm_ctx *ctx, const char *dir, int cuda, struct folder *f)
{
    char *inc = path_join(dir, "include");
    char **names = fs_list_names(inc);
    int found = 0;
    for (char **n = names; n && *n; n++) {
        int major = 0, minor = 0, used = 0;
        if (sscanf(*n, "%d.%d%n", &major, &minor, &used) == 2 && !(*n)[used] &&
            (!cuda || cuda == major) && has_header(dir, *n)) {
            free(f->sub);
            f->sub = xstrdup(*n);
            found++;
        }
    }
    strv_free(names);
    free(inc);
    if (found > 1)
        return cdm_error_set(ctx, CDM_EAMBIGUOUS,
                             "'%s' holds cuDNN for several CUDA versions; choose one with "
                             "--cuda N",
                             dir);
    return CDM_OK;
}

int folder_locate(cdm_ctx *ctx, const char *dir, int cuda, struct folder *f)
{
    memset(f, 0, sizeof(*f));
    f->what = "the folder";
    char *nvidia = path_dirname(dir);
    /* the wheel's own folder: <site>/nvidia/cudnn */
    if (!strcmp(path_basename(dir), "cudnn") && !strcmp(path_basename(nvidia), "nvidia")) {
        char *site = path_dirname(nvidia);
        f->root = xstrdup(dir);
        int rc = read_wheel_beside(ctx, site, f);
        free(site);
        free(nvidia);
        return rc;
    }
    free(nvidia);
    if (has_header(dir, NULL)) {
        f->root = xstrdup(dir);
        return read_conda_beside(ctx, dir, "", f);
    }
    char *library = path_join(dir, "Library"); /* a conda environment on Windows */
    if (has_header(library, NULL)) {
        f->root = library;
        return read_conda_beside(ctx, dir, "Library/", f);
    }
    free(library);
    /* a site-packages, or an environment's prefix with its site-packages */
    size_t own = 0;
    char **sites = py_site_packages(dir, &own);
    char *wheel = path_join(dir, "nvidia/cudnn");
    int rc = CDM_OK;
    if (has_header(wheel, NULL)) {
        f->root = wheel, wheel = NULL;
        rc = read_wheel_beside(ctx, dir, f);
    }
    for (size_t i = 0; sites && sites[i] && i < own && !f->root; i++) {
        char *in_site = path_join(sites[i], "nvidia/cudnn");
        if (has_header(in_site, NULL)) {
            f->root = in_site, in_site = NULL;
            rc = read_wheel_beside(ctx, sites[i], f);
        }
        free(in_site);
    }
    free(wheel);
    strv_free(sites);
    if (!f->root && !(rc = installer_sub(ctx, dir, cuda, f)) && f->sub) {
        f->root = xstrdup(dir);
        f->what = "the installer's tree";
    }
    if (!rc && !f->root)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "no cuDNN in '%s': no include/cudnn_version.h there, in "
                           "nvidia/cudnn, in a Python environment's site-packages or below "
                           "include/<CUDA version>/; give the folder that holds include/",
                           dir);
    return rc;
}

void folder_free(struct folder *f)
{
    free(f->root);
    free(f->sub);
    free(f->record);
    wheel_info_free(&f->wheel);
}
