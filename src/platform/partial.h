/*
 * A download in progress: a file read and appended to by one cdm process at a time.
 * One implementation per platform (partial_posix.c, partial_win32.c).
 *
 * The lock is on the file itself (flock on POSIX; on Windows a byte range far past any
 * data, so that reading and writing the bytes stay possible), and a process that waited
 * for it checks, once it holds it, that the path still names the file it locked: the
 * holder may have renamed or deleted it meanwhile (a finished download), and then the
 * path is opened again.
 */
#ifndef CDM_PARTIAL_H
#define CDM_PARTIAL_H

#include "cdm.h"
#include "base/error.h"

#include <stdint.h>

struct fs_partial;

/* Open or create path and lock it. wait: wait for another holder; else return CDM_EBUSY
 * (no message) at once. *size gets the bytes already there. */
int fs_partial_open(cdm_ctx *ctx, const char *path, bool wait, struct fs_partial **out,
                    uint64_t *size);
/* Bytes read at offset (0 at the end), negative on error (message set). */
long long fs_partial_read(cdm_ctx *ctx, struct fs_partial *p, uint64_t offset, void *buf, size_t n);
/* Append n bytes at the end; a short write (a full disk) is an error naming the cause. */
int fs_partial_append(cdm_ctx *ctx, struct fs_partial *p, const void *buf, size_t n);
/* Back to zero bytes (the server ignored a range request, or the bytes were wrong). */
int fs_partial_truncate(cdm_ctx *ctx, struct fs_partial *p);
/* Flush the bytes to disk. */
int fs_partial_sync(cdm_ctx *ctx, struct fs_partial *p);
/* The bytes in the file now. */
uint64_t fs_partial_size(const struct fs_partial *p);
/* Close and release the lock. */
void fs_partial_close(struct fs_partial *p);

#endif
