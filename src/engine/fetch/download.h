/*
 * One archive from an http(s) base into <folder>/<name>.partial: resumed with a range
 * request where bytes are there already, hashed while it arrives, checked against the
 * manifest's size and sha256 (fail closed), under a lock on the partial so that two cdm
 * processes fetching the same archive download it once.
 */
#ifndef CDM_DOWNLOAD_H
#define CDM_DOWNLOAD_H

#include "manifest.h"
#include "net.h"
#include "platform/partial.h"

/* Told of the partial's size each time it changes (bytes appended, or cut back to none):
 * an install that unpacks the archive while it arrives (download_stream.c) reads up to it.
 * A status other than CDM_OK stops the download, the bytes kept. */
struct download_watch {
    int (*size_now)(void *arg, uint64_t size);
    void *arg;
};

struct download {
    char *partial;           /* <folder>/<name>.partial */
    struct fs_partial *file; /* open and locked while the download is held */
    /* What the transfer takes from the command, copied by download_hold: a download run on
     * a thread of its own has only an error sink for a context (base/error.h). */
    uint64_t max_size;                 /* [install] max_size, for a file of unknown size */
    const volatile sig_atomic_t *stop; /* the command's Ctrl-C flag */
    void (*progress)(void *arg, uint64_t done, uint64_t total); /* NULL: none shown */
    void *progress_arg;
    const struct download_watch *watch; /* NULL: nobody reads the partial meanwhile */
    /* The file is kept once whole (cdm fetch --into), so flushed to disk then; an install's
     * download is deleted once installed and is not: a flush would wait for the disk (and
     * for other programs' writes) for nothing, the install's own files being made durable
     * on their own, and a partial damaged by a power cut fails its hash and is fetched
     * again. */
    bool kept;
};

/* Lock folder/<entry name>.partial, waiting (and saying so) while another cdm process
 * holds it. The caller checks whether the work is done already (another process may have
 * finished it), then calls download_run, and download_release in any case. */
int download_hold(cdm_ctx *ctx, const char *folder, const struct manifest_entry *e,
                  struct download *d);

/* Fetch url into the held partial until it has the entry's size and sha256. A cut or a
 * timeout keeps the bytes (the next run resumes); a wrong hash deletes them. ctx serves
 * for errors and notes alone (a worker's error sink may stand for it). */
int download_run(cdm_ctx *ctx, struct net *net, const char *url, const struct manifest_entry *e,
                 struct download *d);

/* Unlock; remove the partial when remove is true or when it holds no byte. */
void download_release(cdm_ctx *ctx, struct download *d, bool remove);

#endif
