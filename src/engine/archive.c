/*
 * Reading an archive once: the bytes handed to libarchive are hashed on the way, every
 * entry is checked before anything is written (entry_check.c), and files are written by
 * cdm itself (not archive_write_disk) so that no link or odd entry can steer a write
 * outside the destination folder.
 */
/* libarchive's headers before cdm's: on Windows they bring in mingw's io.h, whose inline
 * functions call strncpy, which base/banned.h makes an error once it is read. */
#include <archive.h>
#include <archive_entry.h>

#include "cdm_archive.h"
#include "entry_check.h"
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
};

static la_ssize_t stream_read(struct archive *a, void *arg, const void **buf)
{
    (void)a;
    struct stream *s = arg;
    if (s->ctx->interrupted) {
        s->error = cdm_error_set(s->ctx, CDM_EIO, "interrupted");
        return -1;
    }
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
    struct sha256 *file_hash;
    char *buf;
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

static int write_regular(struct walk *w, struct archive *a, struct archive_entry *e,
                         const char *rel)
{
    char *full = path_join(w->dest, rel);
    struct fs_file *f = NULL;
    bool executable = (archive_entry_perm(e) & 0111) != 0;
    int rc = fs_file_create(w->ctx, full, executable, &f);
    bool keep = is_version_header(rel);
    struct strbuf kept = STRBUF_INIT;
    unsigned long long size = 0;
    sha256_reset(w->file_hash);
    while (!rc) {
        la_ssize_t n = archive_read_data(a, w->buf, READ_BLOCK);
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
            rc = cdm_error_set(w->ctx, CDM_EARCHIVE,
                               "refusing archive '%s': it unpacks to more than %llu bytes "
                               "([install] max_size); nothing was installed",
                               w->archive_path, w->limits->max_total_size);
            break;
        }
        sha256_update(w->file_hash, w->buf, (size_t)n);
        if (keep && kept.len < HEADER_KEEP)
            sb_addn(&kept, w->buf, (size_t)n);
        rc = fs_file_write(w->ctx, f, w->buf, (size_t)n);
    }
    if (f) {
        if (rc)
            fs_file_abort(f);
        else
            rc = fs_file_close(w->ctx, f);
    }
    if (!rc) {
        char hex[65];
        sha256_finish_hex(w->file_hash, hex);
        add_file(w, rel, size, hex, NULL, fs_file_mode(full));
        if (keep)
            rc = read_header_version(w, rel, sb_str(&kept), kept.len);
    }
    sb_free(&kept);
    free(full);
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
                     .file_hash = sha256_new(),
                     .buf = xmalloc(READ_BLOCK),
                     .check = {.max_entries = limits->max_entries}};
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
    if ((rc = write_links(&w)))
        goto out;
    if ((rc = stream_drain(&s)))
        goto out;
    sha256_finish_hex(s.hash, result->sha256);
    result->archive_size = s.done;
    _Static_assert(sizeof(result->top) == sizeof(w.check.top), "the same top folder buffer");
    memcpy(result->top, w.check.top, sizeof(result->top));
out:
    archive_read_free(a);
    stream_close(&s);
    sha256_free(w.file_hash);
    free(w.buf);
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
