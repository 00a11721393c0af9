/*
 * A download unpacked while it arrives: download_run on a thread of its own, writing the
 * held .partial as always (so a cut download still resumes, and its hash is still checked
 * against the manifest), while the install reads the same file up to the bytes written so
 * far (struct arriving, cdm_archive.h). The install hashes what it read too, and is
 * recorded only once both hashes match and the download is done.
 */
#ifndef CDM_DOWNLOAD_STREAM_H
#define CDM_DOWNLOAD_STREAM_H

#include "cdm_archive.h"
#include "download.h"

struct download_stream;

/* Start fetching url into d (held: download_hold), as download_run does, on a thread of
 * its own with net's settings. NULL when no thread could be had: the caller then downloads
 * the file whole first. */
struct download_stream *download_stream_start(cdm_ctx *ctx, const struct net *net, const char *url,
                                              const struct manifest_entry *e, struct download *d);
/* What the extraction reads through (limits.arriving). */
const struct arriving *download_stream_arriving(struct download_stream *s);
/* Whether the bytes a zip's readers had ahead of the download (download_ahead.h) are the
 * whole file's: asked once the download is whole. */
bool download_stream_ahead_agrees(cdm_ctx *ctx, struct download_stream *s);
/* Wait for the download to end: CDM_OK once the whole file came and matched its hash,
 * else the download's status, its message put in ctx. */
int download_stream_finish(cdm_ctx *ctx, struct download_stream *s);
/* Stop the download if it still runs (what came is kept to resume from), wait for its
 * thread and free s. Whether the whole file came and matched: true. */
bool download_stream_end(struct download_stream *s);

#endif
