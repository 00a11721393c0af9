/* What the file system API does the same way on both platforms, over their primitives. */
#include "fs.h"

#include <stdlib.h>
#include <string.h>

bool fs_read_file(const char *path, size_t max, struct strbuf *out)
{
    FILE *f = fs_fopen_read(path);
    if (!f)
        return false;
    bool ok = sb_read_stream(out, f, max);
    fclose(f);
    return ok;
}

bool fs_platform_is_windows(const char *platform)
{
    return str_starts_with(platform, "windows");
}

bool fs_host_is_windows(void)
{
    return fs_platform_is_windows(fs_host_platform());
}

char **fs_list_names(const char *path)
{
    char **names = NULL;
    return fs_list_dir(NULL, path, &names) == CDM_OK ? names : NULL; /* ctx NULL: error.h */
}

bool fs_same_path(const char *a, const char *b)
{
    char *ra = fs_realpath(a), *rb = fs_realpath(b);
    bool same = ra && rb && !strcmp(ra, rb);
    free(ra);
    free(rb);
    return same;
}

bool fs_is_dir_followed(const char *path)
{
    enum fs_kind k = fs_kind(path);
    if (k != FS_LINK)
        return k == FS_DIR;
    char *real = fs_realpath(path);
    bool dir = real && fs_kind(real) == FS_DIR;
    free(real);
    return dir;
}

struct fs_atomic {
    struct fs_file *file;
    char *path, *tmp;
};

uint64_t fs_temp_writer(const char *name, const char *base)
{
    const char *mark = !base                         ? strstr(name, ".cdm-")
                       : str_starts_with(name, base) ? name + strlen(base)
                                                     : NULL;
    uint64_t pid = 0;
    const char *rest = mark ? name_pid(mark, ".cdm-", &pid) : NULL;
    return rest && !strcmp(rest, ".tmp") ? pid : 0;
}

unsigned fs_clean_stale_temps(cdm_ctx *ctx, const char *dir, const char *base)
{
    char **names = NULL;
    unsigned removed = 0;
    struct saved_error saved = error_save(ctx);
    if (fs_list_dir(ctx, dir, &names) == CDM_OK) {
        for (char **n = names; *n; n++) {
            uint64_t pid = fs_temp_writer(*n, base);
            char *path = pid ? path_join(dir, *n) : NULL;
            enum fs_kind kind = pid ? fs_kind(path) : FS_NONE;
            if (pid && pid != fs_process_id() && !fs_process_running(pid) &&
                (kind == FS_FILE || kind == FS_LINK) && fs_remove_file(ctx, path) == CDM_OK)
                removed++;
            free(path);
        }
    }
    strv_free(names);
    error_restore(ctx, &saved);
    return removed;
}

int fs_atomic_open(cdm_ctx *ctx, const char *path, bool executable, struct fs_atomic **out)
{
    *out = NULL;
    /* what a writer of path killed before its commit left beside it goes first */
    char *dir = path_dirname(path);
    fs_clean_stale_temps(ctx, dir, path_basename(path));
    free(dir);
    char *tmp = xasprintf("%s.cdm-%llu.tmp", path, (unsigned long long)fs_process_id());
    struct fs_file *f = NULL;
    int rc = fs_kind(tmp) == FS_NONE ? CDM_OK : fs_remove_file(ctx, tmp);
    if (!rc)
        rc = fs_file_create(ctx, tmp, executable, &f);
    if (rc) {
        free(tmp);
        return rc;
    }
    struct fs_atomic *a = xmalloc(sizeof(*a));
    *a = (struct fs_atomic){f, xstrdup(path), tmp};
    *out = a;
    return CDM_OK;
}

int fs_atomic_write(cdm_ctx *ctx, struct fs_atomic *a, const void *buf, size_t n)
{
    return fs_file_write(ctx, a->file, buf, n);
}

void fs_atomic_abort(cdm_ctx *ctx, struct fs_atomic *a)
{
    if (!a)
        return;
    if (a->file)
        fs_file_abort(a->file);
    struct saved_error saved = error_save(ctx); /* the failure that led here is the one told */
    fs_remove_file(ctx, a->tmp);
    error_restore(ctx, &saved);
    free(a->tmp);
    free(a->path);
    free(a);
}

int fs_atomic_commit(cdm_ctx *ctx, struct fs_atomic *a)
{
    /* the data before the name: without it a power cut after the rename can leave the
     * name on an empty file */
    int rc = fs_file_flush(ctx, a->file);
    int close_rc = fs_file_close(ctx, a->file);
    a->file = NULL;
    if (!rc)
        rc = close_rc;
    if (!rc)
        rc = fs_rename(ctx, a->tmp, a->path);
    if (rc) {
        fs_atomic_abort(ctx, a);
        return rc;
    }
    char *dir = path_dirname(a->path);
    fs_sync_dir(dir);
    free(dir);
    free(a->tmp);
    free(a->path);
    free(a);
    return CDM_OK;
}

int fs_atomic_write_whole(cdm_ctx *ctx, const char *path, const void *data, size_t len)
{
    struct fs_atomic *a = NULL;
    int rc = fs_atomic_open(ctx, path, false, &a);
    if (!rc && (rc = fs_atomic_write(ctx, a, data, len)))
        fs_atomic_abort(ctx, a);
    else if (!rc)
        rc = fs_atomic_commit(ctx, a);
    return rc;
}
