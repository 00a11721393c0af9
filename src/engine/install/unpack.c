/*
 * An install's file unpacked into its staging folder (unpack.h): hashed on the way, then
 * checked against its own list of hashes.
 */
#include "unpack.h"
#include "platform/fs.h"

#include <stdlib.h>

/* A package whose tar lies inside it (a .conda's pkg-*.tar.zst, copied out to payload): the
 * tar unpacked; the hashes that apply are the package file's, read once more. */
static int extract_payload(cdm_ctx *ctx, const char *archive, const char *payload, const char *tmp,
                           const struct checksums *sums, const struct extract_limits *limits,
                           struct extract_result *x)
{
    int rc = archive_extract(ctx, payload, tmp, limits, x);
    if (rc && !ctx->interrupted) /* the message names the copy in staging: say whose */
        return cdm_error_wrap(ctx, rc, "cannot install '%s'", archive);
    if (!rc && !(rc = archive_hash(ctx, archive, x->sha256, &x->archive_size)))
        rc = checksums_check(ctx, sums, archive, x->sha256);
    return rc;
}

/* The file itself unpacked (or the archive that lies in it, stored: limits' window of the
 * file, a .deb's data.tar.*), the whole file hashed on the way. An archive that cannot be read
 * while a hash was expected is most likely not the file meant: that is said first. */
static int extract_file(cdm_ctx *ctx, const char *archive, const char *tmp,
                        const struct checksums *sums, const struct extract_limits *limits,
                        struct extract_result *x)
{
    int rc = archive_extract(ctx, archive, tmp, limits, x);
    /* (one still arriving has its hash checked by the download) */
    if (rc == CDM_EARCHIVE && sums->count && !limits->arriving) {
        char sha[65];
        uint64_t size;
        struct saved_error saved = error_save(ctx);
        int mismatch = archive_hash(ctx, archive, sha, &size) == CDM_OK
                           ? checksums_check(ctx, sums, archive, sha)
                           : CDM_OK;
        if (!mismatch)
            return error_restore(ctx, &saved);
        free(saved.message);
        return mismatch;
    }
    return rc ? rc : checksums_check(ctx, sums, archive, x->sha256);
}

/* A package whose tar lies inside it has that tar copied out beside tmp first (removed
 * after), or read where it lies. */
int install_unpack(cdm_ctx *ctx, const char *archive, const char *tmp, const struct source *src,
                   const struct checksums *sums, const struct extract_result *beside,
                   const struct arriving *arriving, struct extract_result *x)
{
    struct extract_limits limits = {ctx->config.max_total_size,
                                    ctx->config.max_entries,
                                    config_threads(&ctx->config),
                                    ctx->config.thread_memory,
                                    src->select,
                                    beside,
                                    0,
                                    0,
                                    arriving};
    if (ctx->options.progress) /* the phase the progress line below is about */
        cdm_note(ctx, "unpacking and checking '%s'", path_basename(archive));
    char *dir = src->kind->payload ? xasprintf("%s.payload", tmp) : NULL, *payload = NULL;
    int rc = CDM_OK;
    if (dir && !(rc = fs_mkdir(ctx, dir)))
        rc = src->kind->payload(ctx, archive, dir, &payload);
    if (!rc && src->kind->window)
        rc = src->kind->window(ctx, archive, &limits.part_offset, &limits.part_size);
    if (!rc)
        rc = payload ? extract_payload(ctx, archive, payload, tmp, sums, &limits, x)
                     : extract_file(ctx, archive, tmp, sums, &limits, x);
    if (dir && fs_kind(dir) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, dir);
        error_restore(ctx, &saved);
    }
    free(payload);
    free(dir);
    /* the form's own hashes: a wheel's RECORD, a conda package's paths.json, md5sums */
    if (!rc && src->kind->check)
        rc = src->kind->check(ctx, archive, src, tmp, x);
    return rc;
}
