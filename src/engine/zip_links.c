/*
 * The entries a zip's central directory marks as symbolic links. A zip records a link only
 * there (the external attributes, at the end of the file), as a small entry whose bytes
 * are its target; the streaming reader archive.c hashes with never sees that directory and
 * would take a link for a file. So the directory is read first, by seeking, and archive.c
 * reads those entries as links, under the same checks as a tar's.
 */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>
#include <archive_entry.h>

#include "cdm_archive.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

#define ZIP_BLOCK (1 << 16)

struct zip_file {
    cdm_ctx *ctx;
    struct fs_reader *reader;
    char *block;
    int error;
};

static la_ssize_t zip_read(struct archive *a, void *arg, const void **buf)
{
    (void)a;
    struct zip_file *z = arg;
    long long n = fs_reader_read(z->ctx, z->reader, z->block, ZIP_BLOCK);
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
    long long at = fs_reader_seek(z->ctx, z->reader, offset, whence);
    if (at < 0) {
        z->error = (int)at;
        return ARCHIVE_FATAL;
    }
    return at;
}

int zip_links_find(cdm_ctx *ctx, const char *path, struct strmap *links)
{
    struct zip_file z = {.ctx = ctx};
    uint64_t size;
    int rc = fs_reader_open(ctx, path, &z.reader, &size);
    if (rc)
        return rc;
    z.block = xmalloc(ZIP_BLOCK);
    struct archive *a = archive_read_new();
    archive_read_support_format_zip_seekable(a);
    archive_read_set_read_callback(a, zip_read);
    archive_read_set_seek_callback(a, zip_seek);
    archive_read_set_callback_data(a, &z);
    struct archive_entry *e;
    int r = archive_read_open1(a);
    while (r == ARCHIVE_OK &&
           ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN)) {
        r = ARCHIVE_OK;
        if (archive_entry_filetype(e) != AE_IFLNK)
            continue;
        const char *name = archive_entry_pathname_utf8(e);
        if (!name)
            name = archive_entry_pathname(e);
        bool added;
        if (name)
            strmap_put(links, name, strlen(name), 0, &added);
    }
    if (r != ARCHIVE_EOF)
        rc = z.error ? z.error
                     : cdm_error_set(ctx, CDM_EARCHIVE,
                                     "cannot read archive '%s': %s; the file is damaged or "
                                     "incomplete, download it again",
                                     path, archive_error_string(a));
    archive_read_free(a);
    fs_reader_close(z.reader);
    free(z.block);
    return rc;
}
