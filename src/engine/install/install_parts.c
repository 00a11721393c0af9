/* The parts of an install that comes as several packages (install_parts.h). */
#include "cdm_archive.h"
#include "db_parts.h"
#include "install_parts.h"
#include "unpack.h"
#include "platform/fs.h"
#include "base/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kept package's file, read again: still there with its hash, still a part of id. False
 * (with a note saying why it is forgotten) when not. */
static bool reread_part(cdm_ctx *ctx, const struct db_part *row, const struct source *given,
                        struct kept_part *out)
{
    char sha[65];
    uint64_t size;
    struct saved_error saved = error_save(ctx);
    const char *why = NULL;
    if (archive_hash(ctx, row->path, sha, &size))
        why = "its file is gone or unreadable";
    else if (strcmp(sha, row->sha256))
        why = "its file has changed since";
    else if (source_open(ctx, row->path, path_basename(row->path), NULL, &out->src) ||
             out->src.kind != given->kind ||
             version_compare(&out->src.name.version, &given->name.version) ||
             out->src.name.cuda_major != given->name.cuda_major)
        why = "its file is no longer a part of this version";
    error_restore(ctx, &saved);
    if (why) {
        source_free(&out->src);
        cdm_note(ctx, "forgetting '%s', kept for this version: %s; give it again", row->path, why);
        return false;
    }
    out->path = xstrdup(row->path);
    memcpy(out->sha256, sha, sizeof(out->sha256));
    return true;
}

/* A file given together with the one installed: a part of the same id (read into out),
 * else false. */
static bool together_part(cdm_ctx *ctx, const char *path, const struct source *given,
                          struct kept_part *out)
{
    struct saved_error saved = error_save(ctx);
    /* of the same form: a Debian package's parts, or an RPM package's */
    bool part = !source_open(ctx, path, path_basename(path), NULL, &out->src) &&
                out->src.kind == given->kind &&
                !version_compare(&out->src.name.version, &given->name.version) &&
                out->src.name.cuda_major == given->name.cuda_major &&
                !strcmp(out->src.name.platform, given->name.platform) &&
                strcmp(out->src.pkg.package, given->pkg.package);
    error_restore(ctx, &saved); /* a file that is no part is installed on its own turn */
    if (!part)
        source_free(&out->src);
    else
        out->path = xstrdup(path);
    return part;
}

static bool has_package(const struct parts *p, const char *package)
{
    for (size_t i = 0; i < p->count; i++)
        if (!strcmp(p->kept[i].src.pkg.package, package))
            return true;
    return false;
}

static void add_part(struct parts *p, const struct kept_part *part)
{
    p->kept = xrealloc(p->kept, (p->count + 1) * sizeof(*p->kept));
    p->kept[p->count++] = *part;
    p->libraries |= part->src.pkg.libraries;
    p->headers |= part->src.pkg.headers;
}

int parts_gather(cdm_ctx *ctx, const struct source *src, const char *id,
                 const char *const *together, struct parts *p)
{
    memset(p, 0, sizeof(*p));
    p->libraries = src->pkg.libraries, p->headers = src->pkg.headers;
    p->took_together = true;
    for (const char *const *t = together; t && *t; t++) {
        struct kept_part part;
        memset(&part, 0, sizeof(part));
        if (together_part(ctx, *t, src, &part) && !has_package(p, part.src.pkg.package))
            add_part(p, &part);
        else
            p->took_together = false, source_free(&part.src), free(part.path);
    }
    struct db_part *rows = NULL;
    size_t count = 0;
    int rc = db_parts_of(ctx, id, &rows, &count);
    for (size_t i = 0; !rc && i < count; i++) {
        if (!strcmp(rows[i].package, src->pkg.package) || has_package(p, rows[i].package))
            continue; /* the file given stands for its package */
        struct kept_part part;
        memset(&part, 0, sizeof(part));
        if (reread_part(ctx, &rows[i], src, &part))
            add_part(p, &part);
        else
            rc = db_parts_drop(ctx, id, rows[i].package);
    }
    for (size_t i = 0; i < p->count && !src->pkg.libraries && !p->runtime; i++)
        if (p->kept[i].src.pkg.libraries)
            p->runtime = &p->kept[i];
    p->complete = p->libraries && p->headers;
    free(rows);
    return rc;
}

int parts_keep(cdm_ctx *ctx, const char *archive, const struct source *src, const char *id,
               const char *sha, const struct parts *p, char *completes, size_t size)
{
    struct db_part row;
    memset(&row, 0, sizeof(row));
    char *real = fs_realpath(archive);
    bool fits = real && copy_str(row.path, sizeof(row.path), real) &&
                copy_str(row.package, sizeof(row.package), src->pkg.package);
    free(real);
    if (!fits)
        return cdm_error_set(ctx, CDM_EINVAL, "cannot keep '%s': its path is too long", archive);
    memcpy(row.sha256, sha, sizeof(row.sha256));
    int rc = db_begin(ctx);
    if (!rc && !(rc = db_part_put(ctx, id, &row)))
        rc = db_commit(ctx);
    else if (!rc)
        db_rollback(ctx);
    /* what the parts wait for, by the names NVIDIA's packages have */
    char major[16];
    snprintf(major, sizeof(major), "%d", src->pkg.version.part[0]);
    const char *headers = src->pkg.version.part[0] >= 9 ? "headers" : "dev";
    if (!p->libraries && !p->headers)
        snprintf(completes, size,
                 "the runtime package (libcudnn%s-cuda-%d) and the headers package "
                 "(libcudnn%s-%s-cuda-%d) of the same version",
                 major, src->pkg.cuda_major, major, headers, src->pkg.cuda_major);
    else if (!p->libraries)
        snprintf(completes, size, "the runtime package of the same version (libcudnn%s-cuda-%d)",
                 major, src->pkg.cuda_major);
    else
        snprintf(completes, size,
                 "the headers package of the same version (libcudnn%s-%s-cuda-%d; before 9.14, "
                 "libcudnn%s-dev-cuda-%d)",
                 major, headers, src->pkg.cuda_major, major, src->pkg.cuda_major);
    return rc;
}

/* b's records appended to a's (b is left empty): files, the strings they point into, what
 * the folders and headers say. */
static int merge_results(cdm_ctx *ctx, struct extract_result *a, struct extract_result *b)
{
    if (b->header_found && a->header_found &&
        (a->major != b->major || a->minor != b->minor || a->patch != b->patch))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing the packages: their headers say cuDNN %d.%d.%d and "
                             "%d.%d.%d; give packages of one version",
                             a->major, a->minor, a->patch, b->major, b->minor, b->patch);
    if (b->header_found && !a->header_found)
        a->header_found = true, a->major = b->major, a->minor = b->minor, a->patch = b->patch;
    a->files = xrealloc(a->files, (a->file_count + b->file_count + 1) * sizeof(*a->files));
    for (size_t i = 0; i < b->file_count; i++) {
        a->files[a->file_count++] = b->files[i];
        layout_note(&a->scan, b->files[i].path);
    }
    a->strings = xrealloc(a->strings, (a->string_count + b->string_count + 1) * sizeof(char *));
    memcpy(a->strings + a->string_count, b->strings, b->string_count * sizeof(char *));
    a->string_count += b->string_count;
    a->extracted_size += b->extracted_size;
    free(b->files);
    free(b->strings);
    memset(b, 0, sizeof(*b));
    return CDM_OK;
}

/* The entries of a part unpacked in dir moved into tmp, where no other part put one. */
static int move_entries(cdm_ctx *ctx, const char *dir, const char *tmp,
                        const struct extract_result *x)
{
    int rc = CDM_OK;
    for (size_t i = 0; !rc && i < x->file_count; i++) {
        char *from = path_join(dir, x->files[i].path), *to = path_join(tmp, x->files[i].path);
        char *parent = path_dirname(to);
        if (fs_kind(from) == FS_DIR)
            rc = fs_mkdir_p(ctx, to);
        else if (fs_kind(to) != FS_NONE)
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing the packages: two of them hold '%s'; give one "
                               "runtime, one headers and one development package",
                               x->files[i].path);
        else if (!(rc = fs_mkdir_p(ctx, parent)))
            rc = fs_rename(ctx, from, to);
        free(parent);
        free(from);
        free(to);
    }
    return rc;
}

/* A part to unpack: its file, what it says of itself, the hashes it must have. */
struct part_ref {
    const char *path;
    const struct source *src;
    const struct checksums *sums;
};

/* The runtime first, whose libraries the dev package's links point to; then the headers. */
static int rank(const struct source *s)
{
    return s->pkg.libraries ? 0 : s->pkg.headers ? 1 : 2;
}

/* A part after the first: unpacked beside tmp (its links may point to the files of x, the
 * parts before), its files moved in, its records added to x. */
static int join_one(cdm_ctx *ctx, const struct part_ref *part, const char *tmp, size_t n,
                    struct extract_result *x)
{
    char *dir = xasprintf("%s.part%zu", tmp, n);
    struct extract_result px = {0};
    int rc = fs_mkdir(ctx, dir);
    if (!rc && !(rc = install_unpack(ctx, part->path, dir, part->src, part->sums, x, NULL, &px)) &&
        !(rc = move_entries(ctx, dir, tmp, &px)))
        rc = merge_results(ctx, x, &px);
    if (fs_kind(dir) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, dir);
        error_restore(ctx, &saved);
    }
    extract_result_free(&px);
    free(dir);
    return rc;
}

int parts_unpack(cdm_ctx *ctx, const struct parts *p, const char *archive, const struct source *src,
                 const struct checksums *sums, const char *tmp, struct extract_result *x)
{
    size_t n = p->count + 1, k = 0;
    struct part_ref *refs = xcalloc(n, sizeof(*refs));
    struct checksums *kept_sums = xcalloc(p->count + 1, sizeof(*kept_sums));
    for (int r = 0; r < 3; r++) {
        if (rank(src) == r)
            refs[k++] = (struct part_ref){archive, src, sums};
        for (size_t i = 0; i < p->count; i++) {
            if (rank(&p->kept[i].src) != r)
                continue;
            if (p->kept[i].sha256[0]) /* kept from an earlier command: not changed since */
                checksums_add(&kept_sums[i], p->kept[i].sha256, "the hash kept when it was given");
            refs[k++] = (struct part_ref){p->kept[i].path, &p->kept[i].src, &kept_sums[i]};
        }
    }
    int rc = install_unpack(ctx, refs[0].path, tmp, refs[0].src, refs[0].sums, NULL, NULL, x);
    for (size_t i = 1; !rc && i < n; i++)
        rc = join_one(ctx, &refs[i], tmp, i, x);
    for (size_t i = 0; i < p->count; i++)
        checksums_free(&kept_sums[i]);
    free(kept_sums);
    free(refs);
    return rc;
}

/* Keep a recorded versioned library name (lib/libcudnn_ops.so.9, a file or a link) as a
 * file of the install that the part's links may point to. */
static int keep_library(void *arg, const struct db_file *f)
{
    struct extract_result *r = arg;
    if (!str_starts_with(f->path, "lib/") || !strstr(f->path, ".so.") ||
        (!f->sha256 && !f->link_target))
        return CDM_OK;
    r->files = xrealloc(r->files, (r->file_count + 1) * sizeof(*r->files));
    r->strings = xrealloc(r->strings, (r->string_count + 1) * sizeof(*r->strings));
    char *path = r->strings[r->string_count++] = xstrdup(f->path);
    r->files[r->file_count++] = (struct db_file){path, f->size, "", NULL, f->mode};
    return CDM_OK;
}

int parts_recorded_libraries(cdm_ctx *ctx, const struct cdm_install_info *existing,
                             struct extract_result *out)
{
    memset(out, 0, sizeof(*out));
    return db_files_each(ctx, existing->id, keep_library, out);
}

/* The install's recorded files: each path's hash. */
struct recorded_hashes {
    struct strmap by_path; /* path -> index in hashes */
    char **hashes;
    size_t count;
};

static int keep_hash(void *arg, const struct db_file *f)
{
    struct recorded_hashes *r = arg;
    bool added;
    if (!f->sha256)
        return CDM_OK;
    strmap_put(&r->by_path, f->path, strlen(f->path), r->count, &added);
    r->hashes = xrealloc(r->hashes, (r->count + 1) * sizeof(*r->hashes));
    r->hashes[r->count++] = xstrdup(f->sha256);
    return CDM_OK;
}

int parts_same_files(cdm_ctx *ctx, const struct cdm_install_info *existing, const char *archive,
                     const struct extract_result *x)
{
    struct recorded_hashes r = {STRMAP_INIT, NULL, 0};
    int rc = db_files_each(ctx, existing->id, keep_hash, &r);
    for (size_t i = 0; !rc && i < x->file_count; i++) {
        const struct db_file *f = &x->files[i];
        if (!f->sha256)
            continue; /* a link of the package's (libcudnn.so), or a folder */
        size_t *at = strmap_get(&r.by_path, f->path, strlen(f->path));
        if (!at || strcmp(r.hashes[*at], f->sha256))
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "%s is installed already from '%s', and this package ('%s') is "
                               "another build: its '%s' %s; pass --force with all the packages "
                               "of the version to replace the install",
                               existing->id, existing->archive_name, archive, f->path,
                               at ? "has other bytes" : "is not in the install");
    }
    for (size_t i = 0; i < r.count; i++)
        free(r.hashes[i]);
    free(r.hashes);
    strmap_free(&r.by_path);
    return rc;
}

void parts_free(struct parts *p)
{
    for (size_t i = 0; i < p->count; i++) {
        source_free(&p->kept[i].src);
        free(p->kept[i].path);
    }
    free(p->kept);
    memset(p, 0, sizeof(*p));
}
