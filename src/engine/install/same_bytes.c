/*
 * One id, one set of bytes (install.h): an install of an id from a second file (NVIDIA's
 * wheel of a version already installed from its archive, say) is the same install when
 * its cuDNN libraries are the same bytes as the recorded one's: the same set of contents,
 * whatever their names (an archive's libcudnn.so.9 is a link to libcudnn.so.9.1.0, a
 * wheel's is the file itself; a message names a library by the name it has in the file
 * given, its name followed through the links of its folder). Headers, import and static
 * libraries are not compared: the forms differ there (a wheel has no static libraries).
 */
#include "install.h"
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

/* A cuDNN shared library by its name: libcudnn*.so*, cudnn*.dll. */
static bool is_library(const char *path)
{
    const char *base = path_basename(path);
    return (str_starts_with(base, "libcudnn") && strstr(base, ".so")) ||
           (str_starts_with_icase(base, "cudnn") && str_ends_with_icase(base, ".dll"));
}

/* The recorded install's libraries, by base name: each file's hash, or a link's target. */
struct recorded {
    struct strmap by_name; /* base name -> index */
    struct strmap hashes;  /* a file's hash -> index */
    struct db_file *rows;  /* strings owned */
    size_t count;
};

static int keep_row(void *arg, const struct db_file *f)
{
    struct recorded *r = arg;
    if (!is_library(f->path) || (!f->sha256 && !f->link_target))
        return CDM_OK;
    const char *base = path_basename(f->path);
    bool added;
    strmap_put(&r->by_name, base, strlen(base), r->count, &added);
    if (!added) /* two folders hold this name: the first (path order) stands */
        return CDM_OK;
    if (f->sha256)
        strmap_put(&r->hashes, f->sha256, strlen(f->sha256), r->count, &added);
    r->rows = xrealloc(r->rows, (r->count + 1) * sizeof(*r->rows));
    r->rows[r->count++] =
        (struct db_file){xstrdup(f->path), f->size, f->sha256 ? xstrdup(f->sha256) : NULL,
                         f->link_target ? xstrdup(f->link_target) : NULL, f->mode};
    return CDM_OK;
}

/* The hash of the file a name ends at, through links beside it; NULL when it ends at none. */
static const char *resolve(const struct recorded *r, const char *name)
{
    for (int hops = 0; hops < 40; hops++) {
        size_t *i = strmap_get(&r->by_name, name, strlen(name));
        if (!i)
            return NULL;
        const struct db_file *f = &r->rows[*i];
        if (f->sha256)
            return f->sha256;
        name = f->link_target;
    }
    return NULL;
}

/* resolve, else by the name's soname (libcudnn_ops.so.9.1.0: libcudnn_ops.so.9), which is
 * the file of the forms that have no fuller name (a wheel). */
static const char *resolve_soname(const struct recorded *r, const char *name)
{
    const char *hash = resolve(r, name);
    const char *so = strstr(name, ".so.");
    if (hash || !so)
        return hash;
    size_t n = (size_t)(so - name) + strlen(".so.") + strcspn(so + strlen(".so."), ".");
    char *soname = xstrndup(name, n);
    hash = resolve(r, soname);
    free(soname);
    return hash;
}

static void recorded_free(struct recorded *r)
{
    for (size_t i = 0; i < r->count; i++) {
        free((char *)r->rows[i].path);
        free((char *)r->rows[i].sha256);
        free((char *)r->rows[i].link_target);
    }
    free(r->rows);
    strmap_free(&r->by_name);
    strmap_free(&r->hashes);
}

/* The bytes of each library the unpacked install brings, by hash. */
static void hash_set(const struct extract_result *x, struct strmap *set)
{
    for (size_t i = 0; i < x->file_count; i++) {
        const struct db_file *f = &x->files[i];
        bool added;
        if (f->sha256 && !f->link_target && is_library(f->path))
            strmap_put(set, f->sha256, strlen(f->sha256), i, &added);
    }
}

int install_same_libraries(cdm_ctx *ctx, const struct cdm_install_info *existing, const char *from,
                           const char *source, const struct extract_result *x)
{
    struct recorded r = {STRMAP_INIT, STRMAP_INIT, NULL, 0};
    struct strmap brought = STRMAP_INIT;
    int rc = db_files_each(ctx, existing->id, keep_row, &r);
    hash_set(x, &brought);
    const char *differs = NULL, *why = NULL;
    for (size_t i = 0; i < x->file_count && !rc && !differs; i++) {
        const struct db_file *f = &x->files[i];
        if (!f->sha256 || f->link_target || !is_library(f->path) ||
            strmap_get(&r.hashes, f->sha256, strlen(f->sha256)))
            continue;
        differs = f->path;
        why = resolve_soname(&r, path_basename(f->path)) ? "has other bytes"
                                                         : "is not in the install";
    }
    for (size_t i = 0; i < r.count && !rc && !differs; i++) {
        const struct db_file *f = &r.rows[i];
        if (f->sha256 && !strmap_get(&brought, f->sha256, strlen(f->sha256)))
            differs = f->path, why = "of the install is not in it";
    }
    if (!rc && differs)
        rc =
            cdm_error_set(ctx, CDM_EEXISTS,
                          "%s is installed already from '%s', and this %s ('%s') is another "
                          "build: its '%s' %s; pass --force to replace the install with this %s",
                          existing->id, existing->archive_name, source, from, differs, why, source);
    else if (!rc && !brought.count)
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "%s is installed already from '%s', and '%s' has no cuDNN library "
                           "to compare with it; pass --force to replace the install",
                           existing->id, existing->archive_name, from);
    strmap_free(&brought);
    recorded_free(&r);
    return rc;
}
