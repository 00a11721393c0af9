/*
 * [fetch] base: NVIDIA's redist folder or a mirror of its layout (https://, http://, a
 * file:// URL or a plain folder). It lists redistrib_<label>.json manifests beside
 * cudnn/<platform>/<archive>; a manifest's relative_path is relative to the base.
 */
#ifndef CDM_REDIST_H
#define CDM_REDIST_H

#include "manifest.h"
#include "net.h"
#include "version.h"

#define REDIST_NVIDIA "https://developer.download.nvidia.com/compute/cudnn/redist/"

struct redist {
    cdm_ctx *ctx;
    char *base;    /* as configured, for messages; a URL ends with '/' */
    char *dir;     /* a local base's folder; NULL for http(s) */
    bool official; /* NVIDIA's own base: its manifests' hashes mark installs official */
    struct net net;
};

/* The base from CDM_FETCH_BASE, else [fetch] base, else NVIDIA's. CDM_ENOTFOUND (with a
 * message) when downloads are off ("off" or empty). */
int redist_open(cdm_ctx *ctx, struct redist *r);
void redist_close(struct redist *r);

/* Where rel lies below the base: a URL, or a path for a local base. malloc'd. */
char *redist_location(const struct redist *r, const char *rel);
/* Where an entry's archive is: as redist_location, but NVIDIA keeps the archives from before
 * its manifests in another folder (a mirror keeps them below its base, at the same paths). */
char *redist_entry_location(const struct redist *r, const struct manifest_entry *e);

/* A local base's copy of an entry: at its relative_path, or by its file name alone in
 * the base folder (what 'cdm fetch --into' writes). NULL when neither is there. */
char *redist_local_archive(const struct redist *r, const struct manifest_entry *e);

/* An entry as the public API shows it, found at url (a URL, or a local base's path);
 * fails (in r's context) when label or url is longer than an offer keeps. */
int redist_offer(struct redist *r, struct cdm_offer *o, const struct manifest_entry *e,
                 const char *label, const char *url);

/* The labels of the redistrib_<label>.json names in a folder listing (HTML or plain
 * names), each once, newest first; with equal versions a release label (9.27.0) comes
 * before a per-build one. NULL-terminated, malloc'd (cdm_strv_free). */
char **redist_labels_in(const char *text, size_t len);

/* The manifests to read for a version spec, newest first: a full A.B.C (or A.B.C.D) is
 * named directly; anything shorter, or latest, is looked up in the base's listing. */
int redist_candidates(struct redist *r, const struct version_spec *spec, char ***labels);

/* One manifest: parsed (component cudnn), its bytes in raw when raw is given, and its
 * location in *where (malloc'd) when where is given. CDM_ENOTFOUND when there is none. */
int redist_manifest(struct redist *r, const char *label, struct manifest *m, struct strbuf *raw,
                    char **where);

/* An entry's cuDNN version matches spec and cuda (0: any). */
bool redist_entry_matches(const struct manifest_entry *e, const struct version_spec *spec,
                          int cuda);

/* What install and fetch download: the one archive for a spec on a platform. */
struct redist_pick {
    struct manifest manifest;
    const struct manifest_entry *entry; /* into manifest.entries */
    char label[32];                     /* the manifest's label in its file name */
    char *manifest_url;
    struct strbuf raw; /* the manifest's bytes */
};
/* The newest version matching spec that the base publishes for platform (and cuda: 0
 * for any). Two CUDA variants and no cuda: CDM_EAMBIGUOUS naming both. A version no
 * manifest has is looked up in cdm's table of older archives (official.h); the pick's
 * raw is then empty. */
int redist_find(struct redist *r, const char *spec_text, int cuda, const char *platform,
                struct redist_pick *out);
void redist_pick_free(struct redist_pick *p);

#endif
