/* cdm install's way to [fetch] base, when no [install] sources folder has the version. */
#ifndef CDM_FETCH_H
#define CDM_FETCH_H

#include "download_stream.h"

struct fetched {
    char *path;              /* the archive to extract: the verified .partial, or a local base's */
    char name[256];          /* its NVIDIA file name (a .partial's path does not say it) */
    char sha256[65];         /* the manifest's (checked already for a download) */
    char source[4096];       /* the manifest's (or index page's) location, for messages */
    const char *source_noun; /* what source is: "manifest", "package index page" */
    bool official;           /* the manifest is NVIDIA's own */
    bool off;                /* downloads are off: nothing was looked up */
    bool installed;          /* the store has this very archive installed: nothing to do */
    bool other_file;         /* the source has the version, but not the file --sha256 names */
    struct cdm_install_info existing; /* that install */
    struct download hold;             /* a download's lock, kept until the install is done */
    /* a .tar.xz or a zip still downloading, unpacked while it arrives (path is its partial) */
    struct download_stream *stream;
    bool keep;    /* the whole download stays for the next run, installed or not */
    bool settled; /* whole and checked, read as it is from now on (fetch_settle) */
};

/* Find req->what (a version spec) for platform in [fetch] base and download it (unless
 * the store has it from the same archive). Runs without the store lock. */
int fetch_for_install(cdm_ctx *ctx, const struct cdm_install_request *req, const char *platform,
                      struct fetched *out);
/* What the extraction reads a download still arriving through (NULL: the file is whole). */
const struct arriving *fetch_arriving(struct fetched *f);
/* Wait until a download still arriving is whole and checked, as fetch_whole does; from then
 * on it is read as a whole file (fetch_arriving gives NULL): what was read of it as it came
 * is read again. */
int fetch_settle(cdm_ctx *ctx, struct fetched *f);
/* Whether the bytes a zip still arriving had read ahead of its download are the whole
 * file's (true where none were): asked once fetch_whole said it is whole. */
bool fetch_ahead_agrees(cdm_ctx *ctx, struct fetched *f);
/* Wait until a download still arriving is whole and checked: CDM_OK, or why it failed. */
int fetch_whole(cdm_ctx *ctx, struct fetched *f);
/* After the install (done or failed): a finished download is deleted, the lock released;
 * one still arriving is stopped, what came kept to resume from. */
void fetch_done(cdm_ctx *ctx, struct fetched *f);

#endif
