/*
 * A zip read through its central directory, as unzip reads one: the directory, at the end
 * of the file, names the entries and marks the symbolic links (a zip records a link only
 * there, as a small entry whose bytes are its target); libarchive's seekable reader jumps
 * from it to each entry. zip_extract.c walks it once to check every entry, then each of
 * its workers reads its own files through one of its own.
 */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>
#include <archive_entry.h>

#include "cdm_archive.h"
#include "zip_in.h"

#include <stdlib.h>
#include <string.h>

#define ZIP_BLOCK (1 << 16)

struct zip_file {
    cdm_ctx *ctx;
    struct zip_in *reader;
    char *block;
    int error;
};

static la_ssize_t zip_read(struct archive *a, void *arg, const void **buf)
{
    (void)a;
    struct zip_file *z = arg;
    long long n = zip_in_read(z->ctx, z->reader, z->block, ZIP_BLOCK);
    if (n < 0) {
        z->error = (int)n;
        return -1;
    }
    *buf = z->block;
    return (la_ssize_t)n;
}

static la_int64_t zip_seek(struct archive *a, void *arg, la_int64_t offset, int whence)
{
    (void)a;
    struct zip_file *z = arg;
    long long at = zip_in_seek(z->ctx, z->reader, offset, whence);
    if (at < 0) {
        z->error = (int)at;
        return ARCHIVE_FATAL;
    }
    return at;
}

struct zip_source {
    struct zip_file file;
};

struct archive *zip_open(cdm_ctx *ctx, const char *path, struct zip_source **out)
{
    return zip_open_arriving(ctx, path, NULL, false, out);
}

struct archive *zip_open_arriving(cdm_ctx *ctx, const char *path, const struct arriving *arriving,
                                  bool fetch, struct zip_source **out)
{
    struct zip_source *src = xcalloc(1, sizeof(*src));
    struct zip_file *z = &src->file;
    z->ctx = ctx;
    uint64_t size;
    if (zip_in_open(ctx, path, arriving, fetch, &z->reader, &size)) {
        free(src);
        return NULL;
    }
    z->block = xmalloc(ZIP_BLOCK);
    struct archive *a = archive_read_new();
    archive_read_support_format_zip_seekable(a);
    archive_read_set_read_callback(a, zip_read);
    archive_read_set_seek_callback(a, zip_seek);
    archive_read_set_callback_data(a, z);
    if (archive_read_open1(a) != ARCHIVE_OK) {
        zip_failed(ctx, path, a, src);
        zip_close(a, src);
        return NULL;
    }
    *out = src;
    return a;
}

int zip_failed(cdm_ctx *ctx, const char *path, struct archive *a, struct zip_source *src)
{
    return zip_failed_at(ctx, path, a, src, NULL);
}

int zip_failed_at(cdm_ctx *ctx, const char *path, struct archive *a, struct zip_source *src,
                  const char *entry)
{
    if (src->file.error)
        return src->file.error;
    return cdm_error_set(ctx, CDM_EARCHIVE,
                         "cannot read archive '%s'%s%s%s: it is damaged or incomplete; download "
                         "it again (libarchive: %s)",
                         path, entry ? " at entry '" : "", entry ? entry : "", entry ? "'" : "",
                         archive_error_string(a));
}

void zip_close(struct archive *a, struct zip_source *src)
{
    archive_read_free(a);
    if (!src)
        return;
    zip_in_close(src->file.reader);
    free(src->file.block);
    free(src);
}
