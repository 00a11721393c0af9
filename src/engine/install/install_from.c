/*
 * cdm install --from-store DIR VERSION: one install copied from another store (typically a
 * shared one on a network share, which a Windows junction cannot point to) into this one.
 * The other store is only read (its index opened read-only), and it is as untrusted as an
 * archive: its record and every row of its files pass the checks an archive's entries do
 * (entry_check_row: no absolute path, no '..', links only to a file beside them), each file
 * is read without following a link on the way (fs_reader_open_below), hashed while it is
 * copied and checked against that store's record, so a damaged or altered copy there never
 * becomes an install here. What is recorded here is what was written here: the hash of
 * the bytes copied, the modes and the layout found on disk, the version its headers say.
 * The copy then goes in as an archive's content does (journal_install_commit).
 */
#include "archive_walk.h"
#include "header.h"
#include "install.h"
#include "store.h"
#include "store_paths.h"
#include "version.h"
#include "platform/fs.h"
#include "platform/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct copy {
    cdm_ctx *ctx;     /* this store's: errors go here */
    const char *from; /* the other store's folder, for messages */
    const char *src, *dst;
    struct sha256 *hash;
    unsigned char *buf;
    struct entry_checker check;
    struct layout_scan scan;
    struct strbuf header; /* the start of a version header being copied */
    bool header_found;
    int major, minor, patch;
    struct db_file *files; /* what was copied, strings owned */
    size_t n, cap;
    uint64_t bytes;
};

enum { COPY_BLOCK = 256 * 1024 };

static int refuse_row(struct copy *c, const struct entry_verdict *v)
{
    if (v->too_many)
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': the install has more than %llu files "
                             "([install] max_entries); nothing was installed",
                             c->from, c->check.max_entries);
    if (v->link_target)
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': its record '%s' (a link to '%s') %s; a "
                             "cuDNN install links a library only to a file beside it; nothing "
                             "was installed: run 'cdm verify' on that store",
                             c->from, v->name, v->link_target, v->why);
    return cdm_error_set(c->ctx, CDM_EARCHIVE,
                         "refusing the store '%s': its record '%s' %s; nothing was installed: "
                         "run 'cdm verify' on that store",
                         c->from, v->name, v->why);
}

static void keep_file(struct copy *c, const char *path, uint64_t size, const char *sha256,
                      const char *link_target, int mode)
{
    if (c->n == c->cap)
        c->files = xrealloc(c->files, (c->cap = c->cap ? 2 * c->cap : 64) * sizeof(*c->files));
    c->files[c->n++] = (struct db_file){xstrdup(path), size, sha256 ? xstrdup(sha256) : NULL,
                                        link_target ? xstrdup(link_target) : NULL, mode};
}

/* A version header copied: what it says must agree with every other one. */
static int note_header(struct copy *c, const char *rel)
{
    int major, minor, patch;
    if (c->header.len >= HEADER_KEEP) /* cut: macros past the cut would go unseen */
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': its header '%s' is %zu KiB or more, and "
                             "cuDNN's are about 100 KiB; nothing was installed: run 'cdm "
                             "verify' on that store",
                             c->from, rel, (size_t)HEADER_KEEP / 1024);
    if (!cudnn_header_version(c->header.buf, c->header.len, &major, &minor, &patch))
        return CDM_OK;
    if (!c->header_found) {
        c->header_found = true;
        c->major = major;
        c->minor = minor;
        c->patch = patch;
    } else if (major != c->major || minor != c->minor || patch != c->patch) {
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': its headers disagree ('%s' says cuDNN "
                             "%d.%d.%d, another %d.%d.%d); nothing was installed: run 'cdm "
                             "verify' on that store",
                             c->from, rel, major, minor, patch, c->major, c->minor, c->patch);
    }
    return CDM_OK;
}

/* One regular file: copied, hashed, compared with what the other store recorded. */
static int copy_data(struct copy *c, const struct db_file *f, const char *rel)
{
    struct fs_reader *r = NULL;
    struct fs_file *w = NULL;
    uint64_t done = 0;
    bool header = walk_is_version_header(rel);
    char *dst = path_join(c->dst, rel);
    int rc = fs_reader_open_below(c->ctx, c->src, rel, &r, NULL);
    if (!rc)
        rc = fs_file_create_read_only(c->ctx, dst, f->mode >= 0 && (f->mode & 0111), &w);
    sha256_reset(c->hash);
    sb_reset(&c->header);
    while (!rc) {
        long long got = fs_reader_read(c->ctx, r, c->buf, COPY_BLOCK);
        if (got < 0)
            rc = CDM_EIO;
        if (got <= 0)
            break;
        sha256_update(c->hash, c->buf, (size_t)got);
        if (header && c->header.len < HEADER_KEEP)
            sb_addn(&c->header, (const char *)c->buf, (size_t)got);
        rc = fs_file_write(c->ctx, w, c->buf, (size_t)got);
        done += (uint64_t)got;
        if (!rc && c->bytes + done > c->ctx->config.max_total_size)
            rc = cdm_error_set(c->ctx, CDM_EARCHIVE,
                               "refusing the store '%s': the install is larger than %llu bytes "
                               "([install] max_size); nothing was installed",
                               c->from, c->ctx->config.max_total_size);
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
                           "'%s/%s' does not match the record of its store (%llu bytes, sha256 "
                           "%.12s..., recorded %llu bytes, %.12s...); nothing was installed: run "
                           "'cdm verify' on that store",
                           c->src, rel, (unsigned long long)done, hex, (unsigned long long)f->size,
                           f->sha256);
    if (!rc && header)
        rc = note_header(c, rel);
    if (!rc) /* the record is what is on disk here */
        keep_file(c, rel, done, hex, NULL, fs_file_mode(dst));
    c->bytes += done;
    free(dst);
    return rc;
}

/* db_files_each's callback: one row of the install (folder, link or file), in path order,
 * so a folder comes before what it holds. Links are held until the last row. */
static int copy_entry(void *arg, const struct db_file *f)
{
    struct copy *c = arg;
    if (cdm_interrupted(c->ctx))
        return cdm_error_set(c->ctx, CDM_EIO, "interrupted");
    struct entry_verdict v;
    entry_check_row(&c->check, f->path, f->sha256 != NULL, f->link_target, &v);
    if (v.why || v.too_many)
        return refuse_row(c, &v);
    const char *rel = v.rel;
    if (f->link_target || f->sha256)
        layout_note(&c->scan, rel);
    if (f->link_target)
        return CDM_OK; /* held by the checker, made after the last row */
    char *dst = path_join(c->dst, rel);
    int rc = CDM_OK;
    if (!f->sha256) {
        if (!(rc = fs_mkdir_p(c->ctx, dst)))
            keep_file(c, rel, 0, NULL, NULL, fs_file_mode(dst));
    } else {
        char *parent = path_dirname(dst);
        if (!(rc = fs_mkdir_p(c->ctx, parent)))
            rc = copy_data(c, f, rel);
        free(parent);
    }
    free(dst);
    return rc;
}

/* After the last row: the links, judged together (each must end at a file beside it). */
static int copy_links(struct copy *c)
{
    struct entry_verdict v;
    if (entry_links_check(&c->check, &v))
        return refuse_row(c, &v);
    int rc = CDM_OK;
    for (size_t i = 0; i < c->check.link_count && !rc; i++) {
        const struct entry_link *link = &c->check.links[i];
        char *dst = path_join(c->dst, link->rel);
        char *parent = path_dirname(dst);
        if (!(rc = fs_mkdir_p(c->ctx, parent)) && !(rc = fs_symlink(c->ctx, link->target, dst)))
            keep_file(c, link->rel, 0, NULL, link->target, -1);
        free(parent);
        free(dst);
    }
    return rc;
}

/* The other store's record of the install, as far as it names things here: its id
 * becomes a folder name, its version must be what the headers copied say. */
static int check_record(struct copy *c, const struct cdm_install_info *in)
{
    struct version v;
    char id[sizeof(in->id)];
    if (!version_parse(in->version, &v) || in->cuda <= 0 ||
        !install_id_format(in->version, in->cuda, id, sizeof(id)) || strcmp(id, in->id) ||
        link_name_check(in->platform) || !in->platform[0])
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': its record of '%s' is not one cdm writes "
                             "(version '%s', CUDA %d, platform '%s'); nothing was installed",
                             c->from, in->id, in->version, in->cuda, in->platform);
    return CDM_OK;
}

/* What the copied tree says must agree with the record it goes in with. */
static int check_copy(struct copy *c, struct cdm_install_info *in)
{
    struct version v;
    version_parse(in->version, &v);
    if (!c->header_found)
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': %s has no include/cudnn_version.h or "
                             "include/cudnn.h with the version macros; nothing was installed",
                             c->from, in->id);
    if (c->major != v.part[0] || c->minor != v.part[1] || c->patch != v.part[2])
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': its record says %s but the headers say "
                             "cuDNN %d.%d.%d; nothing was installed: run 'cdm verify' on that "
                             "store",
                             c->from, in->id, c->major, c->minor, c->patch);
    const char *os = layout_os(&c->scan);
    if (!*os || !str_starts_with(in->platform, os))
        return cdm_error_set(c->ctx, CDM_EARCHIVE,
                             "refusing the store '%s': %s is recorded for %s but holds %s "
                             "libraries; nothing was installed",
                             c->from, in->id, in->platform, *os ? os : "no (or both kinds of)");
    if (strcmp(in->layout, "A") && strcmp(in->layout, "B") && strcmp(in->layout, "C"))
        in->layout[0] = layout_for_version(&v), in->layout[1] = '\0';
    layout_result(&c->scan, in);
    return CDM_OK;
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
    entry_checker_free(&c->check);
    sb_free(&c->header);
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

static int copy_from_store(cdm_ctx *ctx, const char *from, const char *spec, int cuda,
                           struct cdm_install_result *result)
{
    cdm_ctx *other = NULL;
    struct copy c = {.ctx = ctx, .from = from, .header = STRBUF_INIT};
    char *tmp = NULL;
    struct cdm_install_info in, existing;
    int rc = open_other(ctx, from, &other);
    if (!rc && (rc = cdm_resolve(other, spec, cuda, &in)))
        cdm_error_set(ctx, rc, "%s (in the store '%s')", cdm_error_message(other), from);
    if (rc || (rc = check_record(&c, &in)) || (rc = store_open(ctx, STORE_WRITE, RECOVER_INSTALLS)))
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
    c.check.max_entries = ctx->config.max_entries;
    c.src = in.path;
    c.hash = sha256_new();
    c.buf = xmalloc(COPY_BLOCK);
    tmp = store_staging_tmp(ctx, in.id);
    c.dst = tmp;
    if ((rc = fs_mkdir(ctx, tmp)) || (rc = db_files_each(other, in.id, copy_entry, &c)) ||
        (rc = copy_links(&c)))
        goto out;
    if (!c.n) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "%s in the store '%s' has no files recorded", in.id,
                           from);
        goto out;
    }
    if ((rc = check_copy(&c, &in)))
        goto out;
    char *final = store_install_path(ctx, in.id);
    rc = copy_path(ctx, in.path, sizeof(in.path), final);
    free(final);
    in.installed_at = (int64_t)time(NULL);
    in.size = c.bytes;
    if (!rc)
        dedup_staged(ctx, tmp, in.id, c.files, c.n, result);
    if (!rc && !(rc = journal_install_commit(ctx, tmp, &in, c.files, c.n))) {
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

int cdm_install_from_store(cdm_ctx *ctx, const char *from, const struct cdm_install_request *req,
                           struct cdm_install_result *result)
{
    memset(result, 0, sizeof(*result));
    /* the other store's acceptance was its owner's: this one's user accepts for their own */
    int rc = license_check(ctx, req);
    if (!rc)
        rc = copy_from_store(ctx, from, req->what, req->cuda, result);
    if (!rc)
        rc = license_record(ctx, req, result->install.id);
    return rc;
}
