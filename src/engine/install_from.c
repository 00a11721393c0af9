/*
 * cdm install --from-store DIR VERSION: one install copied from another store (typically a
 * shared one on a network share, which a Windows junction cannot point to) into this one.
 * The other store is only read (its index opened read-only); every file is hashed while it
 * is copied and checked against that store's record, so a damaged or altered copy there
 * never becomes an install here. The copy then goes in as an archive's content does
 * (install_commit), with the same record: id, archive name and hash, official or not.
 */
#include "install.h"
#include "store.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/sha256.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct copy {
    cdm_ctx *ctx;  /* this store's: errors go here */
    cdm_ctx *from; /* the other store's */
    const char *src, *dst;
    struct sha256 *hash;
    unsigned char *buf;
    struct db_file *files; /* what was copied, strings owned */
    size_t n, cap;
    uint64_t bytes;
};

enum { COPY_BLOCK = 256 * 1024 };

/* One regular file: copied, hashed, compared with what the other store recorded. */
static int copy_data(struct copy *c, const struct db_file *f, const char *src, const char *dst)
{
    struct fs_reader *r = NULL;
    struct fs_file *w = NULL;
    uint64_t size = 0, done = 0;
    int rc = fs_reader_open(c->ctx, src, &r, &size);
    if (!rc)
        rc = fs_file_create_read_only(c->ctx, dst, f->mode >= 0 && (f->mode & 0111), &w);
    sha256_reset(c->hash);
    while (!rc) {
        long long got = fs_reader_read(c->ctx, r, c->buf, COPY_BLOCK);
        if (got < 0)
            rc = CDM_EIO;
        if (got <= 0)
            break;
        sha256_update(c->hash, c->buf, (size_t)got);
        rc = fs_file_write(c->ctx, w, c->buf, (size_t)got);
        done += (uint64_t)got;
    }
    if (w && rc)
        fs_file_abort(w);
    else if (w)
        rc = fs_file_close(c->ctx, w);
    fs_reader_close(r);
    char hex[65];
    sha256_finish_hex(c->hash, hex);
    if (!rc && (done != f->size || strcmp(hex, f->sha256)))
        rc = cdm_error_set(c->ctx, CDM_ECHECKSUM,
                           "'%s' does not match the record of its store (%llu bytes, sha256 "
                           "%.12s..., recorded %llu bytes, %.12s...); nothing was installed: run "
                           "'cdm verify' on that store",
                           src, (unsigned long long)done, hex, (unsigned long long)f->size,
                           f->sha256);
    c->bytes += done;
    return rc;
}

/* db_files_each's callback: one entry of the install (folder, link or file), in path
 * order, so a folder comes before what it holds. */
static int copy_entry(void *arg, const struct db_file *f)
{
    struct copy *c = arg;
    if (cdm_interrupted(c->ctx))
        return cdm_error_set(c->ctx, CDM_EIO, "interrupted");
    char *src = path_join(c->src, f->path), *dst = path_join(c->dst, f->path);
    char *parent = path_dirname(dst);
    int rc = fs_mkdir_p(c->ctx, parent);
    if (!rc)
        rc = f->link_target ? fs_symlink(c->ctx, f->link_target, dst)
             : !f->sha256   ? fs_mkdir(c->ctx, dst)
                            : copy_data(c, f, src, dst);
    if (!rc) {
        if (c->n == c->cap)
            c->files = xrealloc(c->files, (c->cap = c->cap ? 2 * c->cap : 64) * sizeof(*c->files));
        struct db_file *k = &c->files[c->n++];
        *k = *f;
        k->path = xstrdup(f->path);
        k->sha256 = f->sha256 ? xstrdup(f->sha256) : NULL;
        k->link_target = f->link_target ? xstrdup(f->link_target) : NULL;
    }
    free(parent);
    free(dst);
    free(src);
    return rc;
}

static void copy_free(struct copy *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free((char *)c->files[i].path);
        free((char *)c->files[i].sha256);
        free((char *)c->files[i].link_target);
    }
    free(c->files);
    free(c->buf);
    sha256_free(c->hash);
}

/* The other store, its index read-only; its errors are moved into ctx. */
static int open_other(cdm_ctx *ctx, const char *from, cdm_ctx **out)
{
    struct cdm_options options = ctx->options;
    options.root = from;
    int rc = cdm_ctx_new(out, &options);
    char *index = rc ? NULL : store_index_path(*out);
    if (!rc && fs_kind(index) != FS_FILE)
        rc = cdm_error_set(*out, CDM_ENOTFOUND, "'%s' is no cdm store: it has no index '%s'", from,
                           index);
    if (!rc)
        rc = db_open(*out, index, DB_READ_ONLY);
    free(index);
    if (rc)
        cdm_error_set(ctx, rc, "%s", cdm_error_message(*out));
    return rc;
}

int cdm_install_from_store(cdm_ctx *ctx, const char *from, const char *spec, int cuda,
                           struct cdm_install_result *result)
{
    memset(result, 0, sizeof(*result));
    cdm_ctx *other = NULL;
    struct copy c = {.ctx = ctx};
    char *tmp = NULL;
    struct cdm_install_info in, existing;
    int rc = open_other(ctx, from, &other);
    if (!rc && (rc = cdm_resolve(other, spec, cuda, &in)))
        cdm_error_set(ctx, rc, "%s (in the store '%s')", cdm_error_message(other), from);
    if (rc || (rc = store_open(ctx, true)))
        goto out;
    if (db_install_get(ctx, in.id, &existing) == CDM_OK && fs_kind(existing.path) == FS_DIR) {
        if (strcmp(existing.sha256, in.sha256)) {
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "%s is installed here already from another archive ('%s'); "
                               "'cdm remove %s' first to take the one in '%s'",
                               in.id, existing.archive_name, in.id, from);
            goto out;
        }
        result->install = existing; /* the same archive's content: nothing to do */
        goto out;
    }
    c.from = other;
    c.src = in.path;
    c.hash = sha256_new();
    c.buf = xmalloc(COPY_BLOCK);
    tmp = store_staging_tmp(ctx, in.id);
    c.dst = tmp;
    if ((rc = fs_mkdir(ctx, tmp)) || (rc = db_files_each(other, in.id, copy_entry, &c)))
        goto out;
    if (!c.n) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "%s in the store '%s' has no files recorded", in.id,
                           from);
        goto out;
    }
    char *final = store_install_path(ctx, in.id);
    rc = copy_path(ctx, in.path, sizeof(in.path), final);
    free(final);
    in.installed_at = (int64_t)time(NULL);
    in.size = c.bytes;
    if (!rc && !(rc = install_commit(ctx, tmp, &in, c.files, c.n))) {
        result->install = in;
        result->changed = true;
    }
out:
    if (tmp && fs_kind(tmp) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, tmp);
        error_restore(ctx, &saved);
    }
    free(tmp);
    copy_free(&c);
    cdm_ctx_free(other);
    return rc;
}
