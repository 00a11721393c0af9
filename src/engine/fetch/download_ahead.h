/*
 * The bytes of a zip that its readers need before the download brings them: the central
 * directory at its end, and each entry's local header (a few KiB from each), asked of the
 * server by range requests on a session of their own while the download goes on from the
 * start. They are kept in memory, never written into the download, whose bytes and hash
 * stay those of one sequential transfer (so a cut one still resumes from its size). Once
 * the download is whole, every byte had ahead is compared with the file's: a server that
 * sent other bytes by range than in the file has the zip unpacked again from the file.
 */
#ifndef CDM_DOWNLOAD_AHEAD_H
#define CDM_DOWNLOAD_AHEAD_H

#include "net.h"
#include "platform/partial.h"

struct download_ahead;

/* For url, of size bytes, with net's settings (a session of its own); ctx's Ctrl-C flag
 * stops a fetch. */
struct download_ahead *download_ahead_new(cdm_ctx *ctx, const struct net *net, const char *url,
                                          uint64_t size);
/* Copy at most n bytes at offset from those had so far: their count, 0 when none there;
 * fetch: ask for them first (from any thread, one request at a time). A server that does
 * not answer a range with that range is asked no more (the readers then wait for the
 * download). Its failures are quiet: the download still brings every byte. */
size_t download_ahead_copy(struct download_ahead *a, uint64_t offset, void *buf, size_t n,
                           bool fetch);
/* Whether every byte had ahead is the file's (p: the whole download). */
bool download_ahead_agrees(cdm_ctx *ctx, struct download_ahead *a, struct fs_partial *p);
void download_ahead_free(struct download_ahead *a);

#endif
