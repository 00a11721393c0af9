/*
 * Reading an archive once: the bytes handed to libarchive are hashed on the way, every
 * entry is checked before anything is written (entry_check.c), and files are written by
 * cdm itself (not archive_write_disk) so that no link or odd entry can steer a write
 * outside the destination folder.
 *
 * Two threads share the work: this one reads and decodes (the decoder is the floor), the
 * writer (extract_writer.c) hashes the archive's bytes and each file's, and writes and
 * closes the files, through a bounded pool of blocks. Every check stays here, before a
 * file's name reaches the writer. A .tar.xz of several xz blocks is decoded by liblzma's
 * multi-threaded decoder (xz_mt.h), which spreads the blocks over the cores; libarchive
 * then reads a plain tar. One of a single block keeps libarchive's own decoding.
 */
/* libarchive's headers before cdm's: on Windows they bring in mingw's io.h, whose inline
 * functions call strncpy, which base/banned.h makes an error once it is read. */
#include <archive.h>
#include <archive_entry.h>

#include "cdm_archive.h"
#include "archive_walk.h"
#include "extract_writer.h"
#include "header.h"
#include "platform/fs.h"
#include "platform/sha256.h"
#include "platform/thread.h"
#include "version.h"
#include "xz_mt.h"
#include "zip_in.h"

#include <stdlib.h>
#include <string.h>

#define READ_BLOCK (1 << 20)

struct stream {
    cdm_ctx *ctx;
    const char *path;
    struct fs_reader *reader;
    struct sha256 *hash;
    unsigned char *block;
    uint64_t done, total;
    uint64_t end; /* libarchive reads up to here: the file's end, or its archive's (a .deb's
                   * data.tar); the hash is of the whole file */
    int error;    /* set when the read callback failed: its message is in ctx */
    const struct arriving *arriving; /* a download still coming in: wait at its end */
    /* while extracting: the writer hashes the bytes, the decoder reads the block in */
    struct extract_writer *writer;
    struct xw_block *in;
    /* a .tar.xz decoded here on several threads (xz_mt.h): libarchive reads the tar */
    struct xz_mt *xz;
    unsigned char *decoded;
};

#define DECODED_BLOCK (1 << 20)

/* The writer stopped: xw_finish puts its error in the context, which then wins. */
#define WRITER_FAILED CDM_EIO

/* At most n, and nothing past the archive's window of the file. */
static size_t stream_want(const struct stream *s, size_t n)
{
    uint64_t left = s->end > s->done ? s->end - s->done : 0;
    return left < n ? (size_t)left : n;
}

/* Up to want bytes of the file from where the reader is (s->done): of a file still
 * arriving, what has come, after a wait when nothing new has; 0 at the file's end. The
 * same size said twice with nothing to read is a file cut short behind the download's
 * back, not a reason to spin. */
static long long stream_fill(struct stream *s, void *buf, size_t want)
{
    long long said = -1;
    for (;;) {
        long long n = fs_reader_read(s->ctx, s->reader, buf, want);
        if (n != 0 || !s->arriving || !want)
            return n;
        long long there = s->arriving->wait(s->arriving->arg, s->ctx, s->done);
        if (there <= (long long)s->done)
            return there < 0 ? there : 0;
        if (there == said)
            return arriving_cut_short(s->ctx, s->path);
        said = there;
    }
}

static la_ssize_t stream_read_shared(struct stream *s, const void **buf)
{
    if (s->in)
        xw_give_back(s->writer, s->in); /* libarchive is done with it */
    s->in = xw_take(s->writer);
    if (!s->in) {
        s->error = WRITER_FAILED;
        return -1;
    }
    long long n = stream_fill(s, s->in->data, stream_want(s, XW_BLOCK_SIZE));
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
    long long n = stream_fill(s, s->block, stream_want(s, READ_BLOCK));
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

/* xz_mt's input: the archive's bytes, hashed on the way as libarchive's would be. */
static long long xz_input(void *arg, const unsigned char **buf)
{
    const void *data = NULL;
    la_ssize_t n = stream_read(NULL, arg, &data);
    *buf = data;
    return n;
}

/* libarchive's read callback for a .tar.xz decoded here: the tar's bytes. */
static la_ssize_t stream_read_decoded(struct archive *a, void *arg, const void **buf)
{
    (void)a;
    struct stream *s = arg;
    const char *why = NULL;
    long long n = xz_mt_read(s->xz, s->decoded, DECODED_BLOCK, &why);
    if (n == XZ_MT_DAMAGED)
        s->error = cdm_error_set(s->ctx, CDM_EARCHIVE,
                                 "cannot read archive '%s': it is damaged or incomplete (%s); "
                                 "download it again",
                                 s->path, why);
    if (n < 0)
        return -1; /* XZ_MT_INPUT: stream_read set s->error */
    *buf = s->decoded;
    return (la_ssize_t)n;
}

/* Hash what libarchive did not ask for (the zip central directory, tar padding). */
static int stream_drain(struct stream *s)
{
    long long n;
    while ((n = stream_fill(s, s->block, READ_BLOCK)) > 0) {
        sha256_update(s->hash, s->block, (size_t)n);
        s->done += (uint64_t)n;
    }
    if (s->ctx->options.progress)
        s->ctx->options.progress(s->ctx->options.callback_arg, s->done, s->total);
    return n < 0 ? (int)n : CDM_OK;
}

static void stream_close(struct stream *s)
{
    xz_mt_free(s->xz);
    free(s->decoded);
    fs_reader_close(s->reader);
    sha256_free(s->hash);
    free(s->block);
}

/* The file at path, its archive the whole of it, or size bytes from offset (size 0: all):
 * the bytes before that are hashed here, those after it by stream_drain. A file still
 * arriving is read as far as it has come, its size the one it will have. */
static int stream_open(cdm_ctx *ctx, const char *path, uint64_t offset, uint64_t size,
                       const struct arriving *arriving, struct stream *s)
{
    memset(s, 0, sizeof(*s));
    s->ctx = ctx;
    s->path = path;
    s->arriving = arriving;
    int rc = fs_reader_open(ctx, path, &s->reader, &s->total);
    if (rc)
        return rc;
    if (arriving)
        s->total = arriving->size;
    s->hash = sha256_new();
    s->block = xmalloc(READ_BLOCK);
    s->end = size ? offset + size : s->total;
    long long n = 1;
    while (s->end <= s->total && s->done < offset && n > 0) {
        size_t want = offset - s->done < READ_BLOCK ? (size_t)(offset - s->done) : READ_BLOCK;
        if ((n = stream_fill(s, s->block, want)) > 0)
            sha256_update(s->hash, s->block, (size_t)n), s->done += (uint64_t)n;
    }
    if (n > 0 && s->end <= s->total)
        return CDM_OK;
    stream_close(s);
    memset(s, 0, sizeof(*s));
    return n < 0 ? (int)n
                 : cdm_error_set(ctx, CDM_EARCHIVE, "cannot read '%s': it is shorter than it says",
                                 path);
}

int archive_hash(cdm_ctx *ctx, const char *path, char sha256[65], uint64_t *size)
{
    struct stream s;
    int rc = stream_open(ctx, path, 0, 0, NULL, &s);
    if (!rc)
        rc = stream_drain(&s);
    if (!rc) {
        sha256_finish_hex(s.hash, sha256);
        *size = s.done;
    }
    stream_close(&s);
    return rc;
}

/* The writer and what it was given: its n-th file is result->files[pending[n]]. */
struct handed {
    struct extract_writer *writer;
    const struct stream *stream; /* its read callback's own error comes first */
    size_t *pending;
    size_t pending_count, pending_cap;
};

/* The file's blocks go to the writer as they are decoded; its hash and mode come back
 * from the writer once it is done (take_written). */
static int write_regular(struct walk *w, struct archive *a, struct archive_entry *e,
                         const char *rel)
{
    struct handed *h = w->arg;
    char *full = path_join(w->dest, rel);
    bool executable = (archive_entry_perm(e) & 0111) != 0;
    bool keep = walk_is_version_header(rel);
    struct strbuf kept = STRBUF_INIT;
    unsigned long long size = 0;
    int rc = xw_file_open(h->writer, full, executable) ? CDM_OK : WRITER_FAILED;
    while (!rc) {
        struct xw_block *b = xw_take(h->writer);
        if (!b) {
            rc = WRITER_FAILED;
            break;
        }
        la_ssize_t n = archive_read_data(a, b->data, XW_BLOCK_SIZE);
        if (n <= 0)
            xw_give_back(h->writer, b);
        if (n == 0)
            break;
        if (n < 0 && h->stream->error) {
            rc = h->stream->error; /* its message, in the context, says what is wrong */
            break;
        }
        if (n < 0) {
            rc = cdm_error_set(w->ctx, CDM_EARCHIVE,
                               "cannot read archive '%s' at entry '%s': it is damaged or "
                               "incomplete; download it again (libarchive: %s)",
                               w->archive_path, rel, archive_error_string(a));
            break;
        }
        size += (unsigned long long)n;
        w->result->extracted_size += (uint64_t)n;
        if (w->result->extracted_size > w->limits->max_total_size) {
            xw_give_back(h->writer, b);
            rc = cdm_error_set(w->ctx, CDM_EARCHIVE,
                               "refusing archive '%s': it unpacks to more than %llu bytes "
                               "([install] max_size); nothing was installed",
                               w->archive_path, w->limits->max_total_size);
            break;
        }
        if (keep && kept.len < HEADER_KEEP)
            sb_addn(&kept, (const char *)b->data, (size_t)n);
        b->len = (size_t)n;
        xw_file_data(h->writer, b);
    }
    if (!rc && !xw_file_close(h->writer))
        rc = WRITER_FAILED;
    if (!rc) {
        if (h->pending_count == h->pending_cap) {
            h->pending_cap = h->pending_cap ? h->pending_cap * 2 : 64;
            h->pending = xrealloc(h->pending, h->pending_cap * sizeof(*h->pending));
        }
        h->pending[h->pending_count++] = w->result->file_count;
        walk_add_file(w, rel, size, "", NULL, -1); /* hash and mode: take_written */
        if (keep)
            rc = walk_header_version(w, rel, sb_str(&kept), kept.len);
    }
    sb_free(&kept);
    free(full);
    return rc;
}

/* Wait for the writer, then fill in the hash and mode of every file it wrote. */
static int take_written(struct walk *w, struct stream *s)
{
    struct handed *h = w->arg;
    struct xw_file *done;
    size_t count;
    int rc = xw_finish(h->writer, w->ctx, &done, &count);
    s->writer = NULL; /* what is left of the archive is hashed here (stream_drain) */
    if (!rc && count != h->pending_count)
        rc = cdm_error_set(w->ctx, CDM_EIO, "cannot install '%s': %zu files were written of %zu",
                           w->archive_path, count, h->pending_count);
    for (size_t i = 0; !rc && i < count; i++) {
        struct db_file *f = &w->result->files[h->pending[i]];
        f->sha256 = walk_keep_string(w->result, done[i].sha256);
        f->mode = done[i].mode;
    }
    free(done);
    return rc;
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

/* An xz file of several blocks, as its last stream's index says: the number of records
 * after the index indicator (xz's file format, sections 2.1.2.2 and 4). A file of one block,
 * or one not read so far, keeps libarchive's own decoding. */
/* Whether the archive (the whole file, or its window from offset, size bytes) is an xz
 * stream of several blocks, which several threads decode. */
static bool xz_of_blocks(cdm_ctx *ctx, const char *path, uint64_t offset, uint64_t window)
{
    static const unsigned char magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
    struct fs_reader *r = NULL;
    uint64_t size = 0;
    unsigned char head[6], footer[12], index[10];
    bool many = false;
    struct saved_error kept = error_save(ctx);
    if (fs_reader_open(ctx, path, &r, &size) != CDM_OK)
        goto out;
    size = window ? window : size;
    if (size < 32 || fs_reader_seek(ctx, r, (long long)offset, 0) < 0 ||
        fs_reader_read(ctx, r, head, sizeof(head)) != sizeof(head) ||
        memcmp(head, magic, sizeof(magic)))
        goto out;
    if (fs_reader_seek(ctx, r, (long long)(offset + size - 12), 0) < 0 ||
        fs_reader_read(ctx, r, footer, sizeof(footer)) != sizeof(footer) || footer[10] != 'Y' ||
        footer[11] != 'Z')
        goto out;
    uint64_t backward = ((uint64_t)footer[4] | (uint64_t)footer[5] << 8 |
                         (uint64_t)footer[6] << 16 | (uint64_t)footer[7] << 24);
    uint64_t index_size = (backward + 1) * 4;
    if (index_size + 24 > size ||
        fs_reader_seek(ctx, r, (long long)(offset + size - 12 - index_size), 0) < 0 ||
        fs_reader_read(ctx, r, index, sizeof(index)) < 2 || index[0] != 0x00)
        goto out;
    uint64_t records = 0;
    for (size_t i = 1, shift = 0; i < sizeof(index) && shift < 63; i++, shift += 7) {
        records |= (uint64_t)(index[i] & 0x7F) << shift;
        if (!(index[i] & 0x80))
            break;
    }
    many = records > 1;
out:
    fs_reader_close(r);
    error_restore(ctx, &kept);
    return many;
}

/* A zip's first bytes: a local file header, or the end of the directory of an empty one. */
static bool is_zip(const char *path)
{
    struct strbuf head = STRBUF_INIT;
    bool zip = fs_read_file(path, 4, &head) && head.len == 4 &&
               (!memcmp(head.buf, "PK\x03\x04", 4) || !memcmp(head.buf, "PK\x05\x06", 4));
    sb_free(&head);
    return zip;
}

bool archive_is_zip_name(const char *name)
{
    return str_ends_with_icase(name, ".zip") || str_ends_with_icase(name, ".whl");
}

bool archive_unpacks_arriving(const char *name)
{
    return (str_ends_with_icase(name, ".tar.xz") && xz_mt_exists()) || archive_is_zip_name(name);
}

/* libarchive's streaming readers (a zip goes to zip_extract): the hash is of the bytes
 * read. *xz_builtin false: no liblzma, only the external xz program (the Windows build). */
static struct archive *reader_new(bool *xz_builtin)
{
    struct archive *a = archive_read_new();
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_filter_gzip(a);
    *xz_builtin = archive_read_support_filter_xz(a) == ARCHIVE_OK;
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_zstd(a); /* a .conda package's pkg-*.tar.zst */
    /* an RPM package: its lead and headers skipped, its cpio payload read */
    archive_read_support_filter_rpm(a);
    archive_read_support_format_cpio(a);
    return a;
}

/* How the archive was read, for --verbose. */
static void say_how(struct archive *a, const struct stream *s, const struct extract_limits *limits,
                    struct extract_result *result)
{
    if (s->xz)
        snprintf(result->unpacked_by, sizeof(result->unpacked_by),
                 "tar, its xz blocks decoded by liblzma on up to %u threads (within %llu MiB)",
                 limits->threads, limits->thread_memory >> 20);
    else
        snprintf(result->unpacked_by, sizeof(result->unpacked_by),
                 "%s, read by libarchive on one thread, written on another",
                 (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_CPIO
                     ? "cpio (an RPM's payload)"
                     : "tar");
}

/* Why libarchive could not open path: a .tar.xz this build cannot decode, else damage. */
static int open_failed(cdm_ctx *ctx, struct archive *a, const struct stream *s, const char *path,
                       bool xz_builtin)
{
    if (!xz_builtin && !s->error &&
        (str_ends_with_icase(path, ".xz") || str_ends_with_icase(path, ".txz")))
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot read archive '%s': this build of cdm reads no .tar.xz "
                             "(built without liblzma, as on Windows); use NVIDIA's .zip "
                             "for Windows, or install the .tar.xz with cdm on Linux",
                             path);
    /* A name of NVIDIA's kinds that libarchive cannot open is cut short or damaged (a
     * truncated .tar.xz fails here, in the xz header), not of another kind. */
    return read_failed(ctx, a, s,
                       archive_has_known_extension(path_basename(path))
                           ? "it is damaged or incomplete; download it again"
                           : "is it a .zip, .tar.xz or .tgz cuDNN archive?");
}

int archive_extract(cdm_ctx *ctx, const char *path, const char *dest,
                    const struct extract_limits *limits, struct extract_result *result)
{
    /* by its bytes: a download is read under a .partial name (one still arriving says
     * whether it is a zip: it is read from its end) */
    if (!limits->part_size && (limits->arriving ? limits->arriving->ahead != NULL : is_zip(path)))
        return zip_extract(ctx, path, dest, limits, result);
    struct handed handed = {0};
    struct walk w; /* holds nothing yet: a failed open leaves nothing to free */
    walk_start(&w, ctx, path, dest, limits, result, write_regular, &handed);
    struct stream s;
    int rc = stream_open(ctx, path, limits->part_offset, limits->part_size, limits->arriving, &s);
    if (rc)
        return rc;
    handed = (struct handed){.writer = xw_start(s.hash), .stream = &s};
    s.writer = handed.writer;
    bool xz_builtin;
    struct archive *a = reader_new(&xz_builtin);
    /* The blocks are counted in the index at the file's end; one still arriving has none
     * yet, and liblzma's decoder takes either (one block it decodes on this thread). */
    if (limits->threads > 1 &&
        (limits->arriving || xz_of_blocks(ctx, path, limits->part_offset, limits->part_size)) &&
        (s.xz = xz_mt_new(limits->threads, limits->thread_memory, xz_input, &s))) {
        s.decoded = xmalloc(DECODED_BLOCK);
        xz_builtin = true;
    }
    if (archive_read_open(a, &s, NULL, s.xz ? stream_read_decoded : stream_read, NULL) !=
        ARCHIVE_OK) {
        rc = open_failed(ctx, a, &s, path, xz_builtin);
        goto out;
    }
    struct archive_entry *e;
    for (;;) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK) { /* a warning too, as bsdtar takes it */
            rc = read_failed(ctx, a, &s, "it is damaged or incomplete; download it again");
            goto out;
        }
        if ((rc = walk_entry(&w, a, e)))
            goto out;
        fs_crash_point("extract-entry");
    }
    if ((rc = take_written(&w, &s)) || (rc = walk_finish(&w)))
        goto out;
    if ((rc = stream_drain(&s)))
        goto out;
    sha256_finish_hex(s.hash, result->sha256);
    result->archive_size = s.done;
    say_how(a, &s, limits, result);
out:
    if (s.writer) { /* stopped early: the writer's error, if it failed, is the cause */
        struct xw_file *done;
        size_t count;
        struct saved_error saved = error_save(ctx);
        int written = xw_finish(handed.writer, ctx, &done, &count);
        if (written) {
            rc = written;
            free(saved.message);
        } else {
            error_restore(ctx, &saved);
        }
        free(done);
    }
    archive_read_free(a); /* before the pool goes: the decoder may hold a block */
    xw_free(handed.writer);
    stream_close(&s);
    free(handed.pending);
    walk_free(&w);
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
