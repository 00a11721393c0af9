/*
 * Reading an archive once: the bytes handed to libarchive are hashed on the way, every
 * entry is checked before anything is written (entry_check.c), and files are written by
 * cdm itself (not archive_write_disk) so that no link or odd entry can steer a write
 * outside the destination folder.
 *
 * Two threads share the work: this one reads and decodes (the decoder is the floor), the
 * writer (extract_writer.c) hashes the archive's bytes and each file's, and writes and
 * closes the files, through a bounded pool of blocks. Every check stays here, before a
 * file's name reaches the writer.
 */
/* libarchive's headers before cdm's: on Windows they bring in mingw's io.h, whose inline
 * functions call strncpy, which base/banned.h makes an error once it is read. */
#include <archive.h>
#include <archive_entry.h>

#include "cdm_archive.h"
#include "entry_check.h"
#include "extract_writer.h"
#include "header.h"
#include "platform/fs.h"
#include "platform/sha256.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

#define READ_BLOCK  (1 << 20)
#define HEADER_KEEP (1 << 20) /* cudnn.h of v7 is about 100 KiB */

struct stream {
    cdm_ctx *ctx;
    const char *path;
    struct fs_reader *reader;
    struct sha256 *hash;
    unsigned char *block;
    uint64_t done, total;
    int error; /* set when the read callback failed: its message is in ctx */
    /* while extracting: the writer hashes the bytes, the decoder reads the block in */
    struct extract_writer *writer;
    struct xw_block *in;
};

/* The writer stopped: xw_finish puts its error in the context, which then wins. */
#define WRITER_FAILED CDM_EIO

static la_ssize_t stream_read_shared(struct stream *s, const void **buf)
{
    if (s->in)
        xw_give_back(s->writer, s->in); /* libarchive is done with it */
    s->in = xw_take(s->writer);
    if (!s->in) {
        s->error = WRITER_FAILED;
        return -1;
    }
    long long n = fs_reader_read(s->ctx, s->reader, s->in->data, XW_BLOCK_SIZE);
    if (n < 0) {
        s->error = (int)n;
        return -1;
    }
    s->in->len = (size_t)n;
    xw_archive_bytes(s->writer, s->in); /* hashed there, in order */
    s->done += (uint64_t)n;
    if (s->ctx->options.progress)
        s->ctx->options.progress(s->ctx->options.callback_arg, s->done, s->total);
    *buf = s->in->data;
    return (la_ssize_t)n;
}

static la_ssize_t stream_read(struct archive *a, void *arg, const void **buf)
{
    (void)a;
    struct stream *s = arg;
    if (s->ctx->interrupted) {
        s->error = cdm_error_set(s->ctx, CDM_EIO, "interrupted");
        return -1;
    }
    if (s->writer)
        return stream_read_shared(s, buf);
    long long n = fs_reader_read(s->ctx, s->reader, s->block, READ_BLOCK);
    if (n < 0) {
        s->error = (int)n;
        return -1;
    }
    sha256_update(s->hash, s->block, (size_t)n);
    s->done += (uint64_t)n;
    if (s->ctx->options.progress)
        s->ctx->options.progress(s->ctx->options.callback_arg, s->done, s->total);
    *buf = s->block;
    return (la_ssize_t)n;
}

/* Hash what libarchive did not ask for (the zip central directory, tar padding). */
static int stream_drain(struct stream *s)
{
    long long n;
    while ((n = fs_reader_read(s->ctx, s->reader, s->block, READ_BLOCK)) > 0) {
        sha256_update(s->hash, s->block, (size_t)n);
        s->done += (uint64_t)n;
    }
    if (s->ctx->options.progress)
        s->ctx->options.progress(s->ctx->options.callback_arg, s->done, s->total);
    return n < 0 ? (int)n : CDM_OK;
}

static int stream_open(cdm_ctx *ctx, const char *path, struct stream *s)
{
    memset(s, 0, sizeof(*s));
    s->ctx = ctx;
    s->path = path;
    int rc = fs_reader_open(ctx, path, &s->reader, &s->total);
    if (rc)
        return rc;
    s->hash = sha256_new();
    s->block = xmalloc(READ_BLOCK);
    return CDM_OK;
}

static void stream_close(struct stream *s)
{
    fs_reader_close(s->reader);
    sha256_free(s->hash);
    free(s->block);
}

int archive_hash(cdm_ctx *ctx, const char *path, char sha256[65], uint64_t *size)
{
    struct stream s;
    int rc = stream_open(ctx, path, &s);
    if (!rc)
        rc = stream_drain(&s);
    if (!rc) {
        sha256_finish_hex(s.hash, sha256);
        *size = s.done;
    }
    stream_close(&s);
    return rc;
}

/* Everything extract needs while walking the entries. */
struct walk {
    cdm_ctx *ctx;
    const char *archive_path;
    const char *dest;
    const struct extract_limits *limits;
    struct extract_result *result;
    struct extract_writer *writer;
    size_t *pending; /* the writer's n-th file is result->files[pending[n]] */
    size_t pending_count, pending_cap;
    size_t file_cap;
    struct entry_checker check;
    struct strmap file_index; /* a regular file's path -> its place in result->files */
    struct strmap zip_links;  /* a zip's entries that its central directory calls links */
    char zip_target[4096];    /* the target of such an entry: its bytes */
    char *header_from;        /* the header that gave the version */
};

static const char *keep_string(struct extract_result *r, const char *s)
{
    if ((r->string_count & (r->string_count + 1)) == 0) /* grow at 0, 1, 3, 7, ... */
        r->strings = xrealloc(r->strings, (r->string_count * 2 + 2) * sizeof(char *));
    char *copy = xstrdup(s);
    r->strings[r->string_count++] = copy;
    return copy;
}

static void add_file(struct walk *w, const char *rel, unsigned long long size, const char *sha256,
                     const char *link_target, int mode)
{
    struct extract_result *r = w->result;
    if (r->file_count == w->file_cap) {
        w->file_cap = w->file_cap ? w->file_cap * 2 : 64;
        r->files = xrealloc(r->files, w->file_cap * sizeof(*r->files));
    }
    if (sha256 && !link_target) {
        bool added;
        strmap_put(&w->file_index, rel, strlen(rel), r->file_count, &added);
    }
    struct db_file *f = &r->files[r->file_count++];
    f->path = keep_string(r, rel);
    f->size = size;
    f->sha256 = sha256 ? keep_string(r, sha256) : NULL;
    f->link_target = link_target ? keep_string(r, link_target) : NULL;
    f->mode = mode;
}

static int refuse(struct walk *w, const struct entry_verdict *v)
{
    if (v->link_target)
        return cdm_error_set(w->ctx, CDM_EARCHIVE,
                             "refusing archive '%s': entry '%s' (a %slink to '%s') %s; a cuDNN "
                             "archive links a library only to a file beside it; nothing was "
                             "installed",
                             w->archive_path, v->name, v->hard ? "hard " : "", v->link_target,
                             v->why);
    return cdm_error_set(w->ctx, CDM_EARCHIVE,
                         "refusing archive '%s': entry '%s' %s; nothing was installed",
                         w->archive_path, v->name, v->why);
}

static int make_parents(struct walk *w, const char *rel)
{
    char *full = path_join(w->dest, rel);
    char *parent = path_dirname(full);
    int rc = fs_mkdir_p(w->ctx, parent);
    free(parent);
    free(full);
    return rc;
}

/* Every cudnn_version.h and cudnn.h of the archive is read, wherever it is: a compiler may
 * be pointed at any of them, so they must all agree. */
static bool is_version_header(const char *rel)
{
    const char *base = path_basename(rel);
    return !strcmp(base, "cudnn_version.h") || !strcmp(base, "cudnn.h");
}

/* The first header with the version macros gives the version; any other must agree. */
static int read_header_version(struct walk *w, const char *rel, const char *text, size_t len)
{
    int major, minor, patch;
    struct extract_result *r = w->result;
    if (!cudnn_header_version(text, len, &major, &minor, &patch))
        return CDM_OK;
    if (!r->header_found) {
        r->header_found = true;
        r->major = major;
        r->minor = minor;
        r->patch = patch;
        w->header_from = xstrdup(rel);
        return CDM_OK;
    }
    if (r->major == major && r->minor == minor && r->patch == patch)
        return CDM_OK;
    return cdm_error_set(w->ctx, CDM_EARCHIVE,
                         "refusing archive '%s': its headers disagree: '%s' says cuDNN "
                         "%d.%d.%d but '%s' says %d.%d.%d; the archive was altered, get the "
                         "original; nothing was installed",
                         w->archive_path, w->header_from, r->major, r->minor, r->patch, rel, major,
                         minor, patch);
}

/* The file's blocks go to the writer as they are decoded; its hash and mode come back
 * from the writer once it is done (take_written). */
static int write_regular(struct walk *w, struct archive *a, struct archive_entry *e,
                         const char *rel)
{
    char *full = path_join(w->dest, rel);
    bool executable = (archive_entry_perm(e) & 0111) != 0;
    bool keep = is_version_header(rel);
    struct strbuf kept = STRBUF_INIT;
    unsigned long long size = 0;
    int rc = xw_file_open(w->writer, full, executable) ? CDM_OK : WRITER_FAILED;
    while (!rc) {
        struct xw_block *b = xw_take(w->writer);
        if (!b) {
            rc = WRITER_FAILED;
            break;
        }
        la_ssize_t n = archive_read_data(a, b->data, XW_BLOCK_SIZE);
        if (n <= 0)
            xw_give_back(w->writer, b);
        if (n == 0)
            break;
        if (n < 0) {
            rc = cdm_error_set(w->ctx, CDM_EARCHIVE,
                               "cannot read archive '%s' at entry '%s': %s; the file is "
                               "damaged or incomplete, download it again",
                               w->archive_path, rel, archive_error_string(a));
            break;
        }
        size += (unsigned long long)n;
        w->result->extracted_size += (uint64_t)n;
        if (w->result->extracted_size > w->limits->max_total_size) {
            xw_give_back(w->writer, b);
            rc = cdm_error_set(w->ctx, CDM_EARCHIVE,
                               "refusing archive '%s': it unpacks to more than %llu bytes "
                               "([install] max_size); nothing was installed",
                               w->archive_path, w->limits->max_total_size);
            break;
        }
        if (keep && kept.len < HEADER_KEEP)
            sb_addn(&kept, (const char *)b->data, (size_t)n);
        b->len = (size_t)n;
        xw_file_data(w->writer, b);
    }
    if (!rc && !xw_file_close(w->writer))
        rc = WRITER_FAILED;
    if (!rc) {
        if (w->pending_count == w->pending_cap) {
            w->pending_cap = w->pending_cap ? w->pending_cap * 2 : 64;
            w->pending = xrealloc(w->pending, w->pending_cap * sizeof(*w->pending));
        }
        w->pending[w->pending_count++] = w->result->file_count;
        add_file(w, rel, size, "", NULL, -1); /* hash and mode: take_written */
        if (keep)
            rc = read_header_version(w, rel, sb_str(&kept), kept.len);
    }
    sb_free(&kept);
    free(full);
    return rc;
}

/* Wait for the writer, then fill in the hash and mode of every file it wrote. */
static int take_written(struct walk *w, struct stream *s)
{
    struct xw_file *done;
    size_t count;
    int rc = xw_finish(w->writer, w->ctx, &done, &count);
    s->writer = NULL; /* what is left of the archive is hashed here (stream_drain) */
    if (!rc && count != w->pending_count)
        rc = cdm_error_set(w->ctx, CDM_EIO, "cannot install '%s': %zu files were written of %zu",
                           w->archive_path, count, w->pending_count);
    for (size_t i = 0; !rc && i < count; i++) {
        struct db_file *f = &w->result->files[w->pending[i]];
        f->sha256 = keep_string(w->result, done[i].sha256);
        f->mode = done[i].mode;
    }
    free(done);
    return rc;
}

/* The links, once every entry has been seen and every link judged: hard links share a
 * regular file written already, symbolic links name a file beside them. */
static int write_links(struct walk *w)
{
    struct entry_verdict v;
    if (entry_links_check(&w->check, &v))
        return refuse(w, &v);
    int rc = CDM_OK;
    for (size_t i = 0; i < w->check.link_count && !rc; i++) {
        const struct entry_link *link = &w->check.links[i];
        char *path = path_join(w->dest, link->rel);
        if ((rc = make_parents(w, link->rel))) {
        } else if (!link->hard) {
            if (!(rc = fs_symlink(w->ctx, link->target, path)))
                add_file(w, link->rel, 0, NULL, link->target, -1);
        } else {
            char *from = path_join(w->dest, link->target);
            size_t *index = strmap_get(&w->file_index, link->target, strlen(link->target));
            if (!index) /* entry_links_check saw it as a file: it was written */
                rc = cdm_error_set(w->ctx, CDM_EARCHIVE,
                                   "cannot install '%s': entry '%s' is a "
                                   "hard link to a file that was not written",
                                   w->archive_path, link->rel);
            else if (!(rc = fs_hardlink(w->ctx, from, path))) {
                /* the same bytes as the file it links to */
                const struct db_file *f = &w->result->files[*index];
                char *sha = xstrdup(f->sha256);
                add_file(w, link->rel, f->size, sha, NULL, f->mode);
                free(sha);
            }
            free(from);
        }
        free(path);
    }
    return rc;
}

static enum entry_kind entry_kind_of(struct archive_entry *e)
{
    if (archive_entry_hardlink(e))
        return ENTRY_HARDLINK;
    switch (archive_entry_filetype(e)) {
    case 0:
        return ENTRY_UNTYPED;
    case AE_IFDIR:
        return ENTRY_DIR;
    case AE_IFREG:
        return ENTRY_FILE;
    case AE_IFLNK:
        return ENTRY_SYMLINK;
    case AE_IFCHR:
    case AE_IFBLK:
        return ENTRY_DEVICE;
    case AE_IFIFO:
        return ENTRY_FIFO;
    case AE_IFSOCK:
        return ENTRY_SOCKET;
    default:
        return ENTRY_UNKNOWN;
    }
}

static int take_entry(struct walk *w, struct archive *a, struct archive_entry *e)
{
    const char *raw = archive_entry_pathname_utf8(e);
    if (!raw)
        raw = archive_entry_pathname(e);
    enum entry_kind kind = entry_kind_of(e);
    const char *target = NULL;
    if (kind == ENTRY_HARDLINK) {
        target = archive_entry_hardlink(e);
    } else if (kind == ENTRY_SYMLINK) {
        target = archive_entry_symlink_utf8(e);
        if (!target)
            target = archive_entry_symlink(e);
    }
    if (kind == ENTRY_FILE && raw && strmap_get(&w->zip_links, raw, strlen(raw))) {
        la_ssize_t n = archive_read_data(a, w->zip_target, sizeof(w->zip_target));
        if (n < 0 || (size_t)n >= sizeof(w->zip_target) || memchr(w->zip_target, 0, (size_t)n))
            return cdm_error_set(w->ctx, CDM_EARCHIVE,
                                 "refusing archive '%s': entry '%s' is a link whose target "
                                 "cannot be read or is not a name; nothing was installed",
                                 w->archive_path, raw);
        w->zip_target[n] = '\0';
        kind = ENTRY_SYMLINK;
        target = w->zip_target;
    }
    struct entry_verdict v;
    entry_check(&w->check, raw, kind, target, &v);
    if (v.too_many)
        return cdm_error_set(w->ctx, CDM_EARCHIVE,
                             "refusing archive '%s': more than %llu entries "
                             "([install] max_entries); nothing was installed",
                             w->archive_path, w->limits->max_entries);
    if (v.why)
        return refuse(w, &v);
    if (!v.rel)
        return CDM_OK; /* the top folder, which is not part of the version folder */
    const char *rel = v.rel;
    if (kind == ENTRY_DIR) {
        char *full = path_join(w->dest, rel);
        int rc = fs_mkdir_p(w->ctx, full);
        free(full);
        return rc;
    }
    if (kind != ENTRY_HARDLINK)
        layout_note(&w->result->scan, rel);
    if (kind == ENTRY_HARDLINK || kind == ENTRY_SYMLINK)
        return CDM_OK; /* held by the checker, made by write_links */
    int rc = make_parents(w, rel);
    if (rc)
        return rc;
    return write_regular(w, a, e, rel);
}

/* libarchive gave up: the read callback's own error first, else libarchive's words. */
static int read_failed(cdm_ctx *ctx, struct archive *a, const struct stream *s, const char *fix)
{
    if (s->error)
        return s->error;
    /* What to do first; libarchive's words ("Lzma library error") only as the detail. */
    return cdm_error_set(ctx, CDM_EARCHIVE, "cannot read archive '%s': %s (libarchive: %s)",
                         s->path, fix, archive_error_string(a));
}

int archive_extract(cdm_ctx *ctx, const char *path, const char *dest,
                    const struct extract_limits *limits, struct extract_result *result)
{
    memset(result, 0, sizeof(*result));
    struct stream s;
    int rc = stream_open(ctx, path, &s);
    if (rc)
        return rc;
    struct walk w = {.ctx = ctx,
                     .archive_path = path,
                     .dest = dest,
                     .limits = limits,
                     .result = result,
                     .writer = xw_start(s.hash),
                     .check = {.max_entries = limits->max_entries}};
    s.writer = w.writer;
    struct archive *a = archive_read_new();
    if (str_ends_with_icase(path, ".zip") && (rc = zip_links_find(ctx, path, &w.zip_links)))
        goto out;
    /* Streaming readers only: a seekable zip reader would jump to the central directory
     * and break the single pass that the hash relies on. */
    archive_read_support_format_zip_streamable(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_filter_gzip(a);
    /* ARCHIVE_WARN: no liblzma, only the external xz program (the Windows build). */
    bool xz_builtin = archive_read_support_filter_xz(a) == ARCHIVE_OK;
    archive_read_support_filter_bzip2(a);
    if (archive_read_open(a, &s, NULL, stream_read, NULL) != ARCHIVE_OK) {
        if (!xz_builtin && !s.error &&
            (str_ends_with_icase(path, ".xz") || str_ends_with_icase(path, ".txz")))
            rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                               "cannot read archive '%s': this build of cdm reads no .tar.xz "
                               "(built without liblzma, as on Windows); use NVIDIA's .zip "
                               "for Windows, or install the .tar.xz with cdm on Linux",
                               path);
        else
            /* A name of NVIDIA's kinds that libarchive cannot open is cut short or damaged
             * (a truncated .tar.xz fails here, in the xz header), not of another kind. */
            rc = read_failed(ctx, a, &s,
                             archive_has_known_extension(path_basename(path))
                                 ? "it is damaged or incomplete; download it again"
                                 : "is it a .zip, .tar.xz or .tgz cuDNN archive?");
        goto out;
    }
    struct archive_entry *e;
    unsigned entries = 0;
    for (;;) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            rc = read_failed(ctx, a, &s, "it is damaged or incomplete; download it again");
            goto out;
        }
        entries++;
        if ((rc = take_entry(&w, a, e)))
            goto out;
        fs_crash_point("extract-entry");
    }
    if (entries == 0) {
        rc = cdm_error_set(ctx, CDM_EARCHIVE, "cannot install '%s': the archive is empty", path);
        goto out;
    }
    if ((rc = take_written(&w, &s)) || (rc = write_links(&w)))
        goto out;
    if ((rc = stream_drain(&s)))
        goto out;
    sha256_finish_hex(s.hash, result->sha256);
    result->archive_size = s.done;
    _Static_assert(sizeof(result->top) == sizeof(w.check.top), "the same top folder buffer");
    memcpy(result->top, w.check.top, sizeof(result->top));
out:
    if (s.writer) { /* stopped early: the writer's error, if it failed, is the cause */
        struct xw_file *done;
        size_t count;
        struct saved_error saved = error_save(ctx);
        int written = xw_finish(w.writer, ctx, &done, &count);
        if (written) {
            rc = written;
            free(saved.message);
        } else {
            error_restore(ctx, &saved);
        }
        free(done);
    }
    archive_read_free(a); /* before the pool goes: the decoder may hold a block */
    xw_free(w.writer);
    stream_close(&s);
    free(w.pending);
    entry_checker_free(&w.check);
    strmap_free(&w.file_index);
    strmap_free(&w.zip_links);
    free(w.header_from);
    return rc;
}

void extract_result_free(struct extract_result *r)
{
    for (size_t i = 0; i < r->string_count; i++)
        free(r->strings[i]);
    free(r->strings);
    free(r->files);
    memset(r, 0, sizeof(*r));
}
