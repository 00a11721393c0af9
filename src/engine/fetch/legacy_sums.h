/* The archives from before NVIDIA's manifests that cdm may download: its own table
 * (official.h), plus a site's own hashes from [fetch] legacy_sums, for archives whose hash
 * NVIDIA never published (cuDNN 8.1.1's Windows zip, say), checked once by the site. */
#ifndef CDM_LEGACY_SUMS_H
#define CDM_LEGACY_SUMS_H

#include "internal.h"
#include "official.h"

struct legacy_list {
    struct official_legacy *items; /* newest version first */
    size_t count;
    char **owned; /* the site's strings */
};

/* The table and the site's file, if configured: lines of sha256sum's format
 * ("HASH  NAME", '*' before NAME allowed, '#' comments), each NAME an archive name in the
 * old or transitional style. A site line that gives an archive of cdm's table another
 * hash, or a malformed line, is refused naming the file and the line. */
int legacy_list_load(cdm_ctx *ctx, struct legacy_list *out);
void legacy_list_free(struct legacy_list *l);

#endif
