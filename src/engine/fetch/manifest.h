/*
 * NVIDIA's redistrib_<label>.json manifests (docs/sources.md), read with cJSON.
 *
 * Top level: release_date, release_label, release_product, then one object per component
 * (cudnn, cudnn_jit, cudnn_samples). A component holds name, license, version,
 * cuda_variant (anywhere among its keys) and one object per platform. A platform object
 * holds variants ("cuda12": archive), or is itself an archive (flat, as the per-build
 * 8.x manifests are), or both at once (9.27.0's windows-arm64). An archive is
 * relative_path, sha256, md5 and size, the size a string of decimal bytes.
 */
#ifndef CDM_MANIFEST_H
#define CDM_MANIFEST_H

#include "internal.h"

#include <stdint.h>

struct manifest_entry {
    char platform[32];        /* linux-x86_64, windows-arm64, ... */
    char variant[16];         /* the key it sits under ("cuda13"); "" for a flat entry */
    int cuda;                 /* CUDA major: the key's, or the file name's for a flat entry */
    char version[32];         /* four parts, from the file name */
    char relative_path[1024]; /* relative to the manifest's folder, '/' separated */
    char name[256];           /* the file name: relative_path's last part */
    char sha256[65];          /* lowercase hex */
    uint64_t size;
    char problem[256]; /* why the entry cannot be used ("" when it can) */
    bool legacy;       /* from cdm's table of archives older than the manifests (official.h):
                        * relative_path is below REDIST_NVIDIA_LEGACY on NVIDIA's server, and
                        * size is 0, unknown */
};

struct manifest {
    char label[32]; /* release_label, else the label the file was named by */
    char release_date[16];
    char version[32]; /* the component's version */
    struct manifest_entry *entries;
    size_t count;
};

/* Parse a manifest's text (len bytes, not NUL-terminated) and keep the archives of
 * component (cudnn). source names the file in messages. Entries that are malformed or
 * unsafe (a relative_path going up, an absolute path, a size that is no number) are
 * kept with their problem set, so a caller asking for exactly that one can say why. */
int manifest_parse(cdm_ctx *ctx, const char *text, size_t len, const char *component,
                   const char *source, struct manifest *out);
void manifest_free(struct manifest *m);

/* A SHA-256 in hex (64 digits, any case) into out, lowercase; false for anything else. */
bool sha256_hex_parse(const char *s, char out[65]);

/* True for a relative_path cdm will join to a base: no "..", no absolute path, no drive,
 * no scheme, no backslash, no empty component, nothing below ' '. */
bool manifest_path_safe(const char *relative_path);

#endif
