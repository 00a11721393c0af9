/* A zip's bytes, on disk or still arriving: see zip_in.h. */
#include "zip_in.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>

struct zip_in {
    struct fs_reader *reader;
    const char *path;
    const struct arriving *arriving; /* NULL: the file is whole */
    bool fetch;
    uint64_t at, size;
    uint64_t there; /* the bytes on disk, as the download last said */
};

int zip_in_open(cdm_ctx *ctx, const char *path, const struct arriving *arriving, bool fetch,
                struct zip_in **out, uint64_t *size)
{
    struct fs_reader *r;
    uint64_t on_disk;
    int rc = fs_reader_open(ctx, path, &r, &on_disk);
    if (rc)
        return rc;
    struct zip_in *in = xcalloc(1, sizeof(*in));
    in->reader = r;
    in->path = path;
    in->arriving = arriving;
    in->fetch = fetch;
    in->size = arriving ? arriving->size : on_disk;
    in->there = arriving ? 0 : on_disk;
    *out = in;
    if (size)
        *size = in->size;
    return CDM_OK;
}

int arriving_cut_short(cdm_ctx *ctx, const char *path)
{
    return cdm_error_set(ctx, CDM_EIO,
                         "cannot read '%s': it became shorter while it was downloaded (another "
                         "program changed it); run the command again",
                         path);
}

/* Up to n bytes from the disk at in->at, which lies below in->there. */
static long long from_disk(cdm_ctx *ctx, struct zip_in *in, void *buf, size_t n)
{
    uint64_t left = in->there - in->at;
    if (n > left)
        n = (size_t)left;
    if (fs_reader_seek(ctx, in->reader, (long long)in->at, SEEK_SET) < 0)
        return cdm_error_code(ctx);
    long long got = fs_reader_read(ctx, in->reader, buf, n);
    if (got == 0 && n)
        return arriving_cut_short(ctx, in->path);
    if (got > 0)
        in->at += (uint64_t)got;
    return got;
}

long long zip_in_read(cdm_ctx *ctx, struct zip_in *in, void *buf, size_t n)
{
    if (!in->arriving) {
        long long got = fs_reader_read(ctx, in->reader, buf, n);
        if (got > 0)
            in->at += (uint64_t)got;
        return got;
    }
    for (;;) {
        if (in->at >= in->size || !n)
            return 0;
        if (in->at < in->there)
            return from_disk(ctx, in, buf, n);
        const struct arriving *a = in->arriving;
        size_t had = a->ahead ? a->ahead(a->arg, in->at, buf, n, in->fetch) : 0;
        if (had) {
            in->at += had;
            return (long long)had;
        }
        long long there = a->wait(a->arg, ctx, in->at);
        if (there < 0)
            return there;
        if ((uint64_t)there <= in->at) /* the download is done and ends before here */
            return 0;
        in->there = (uint64_t)there;
    }
}

long long zip_in_seek(cdm_ctx *ctx, struct zip_in *in, long long offset, int whence)
{
    long long base = whence == SEEK_CUR   ? (long long)in->at
                     : whence == SEEK_END ? (long long)in->size
                                          : 0;
    if (offset < 0 && -offset > base)
        return cdm_error_set(ctx, CDM_EIO, "cannot seek in '%s': before its start", in->path);
    in->at = (uint64_t)(base + offset);
    if (!in->arriving && fs_reader_seek(ctx, in->reader, (long long)in->at, SEEK_SET) < 0)
        return cdm_error_code(ctx);
    return (long long)in->at;
}

void zip_in_close(struct zip_in *in)
{
    if (!in)
        return;
    fs_reader_close(in->reader);
    free(in);
}
