/* The folders of [install] sources: finding an archive by version, in one scan. */
#ifndef CDM_SOURCES_H
#define CDM_SOURCES_H

#include "internal.h"
#include "version.h"

/* The archive `cdm install SPEC` takes: of platform, the newest version spec matches.
 * Fails saying where it looked when there is none, and listing them when several CUDA
 * variants have that version. *found is malloc'd. */
int sources_find(cdm_ctx *ctx, const struct version_spec *spec, const char *platform,
                 const char *spec_text, char **found);

/* Add to the context's "not installed" error, when an archive of this machine's platform
 * that spec_text matches lies in the sources, that it does (code and the rest of the
 * message stay). */
void sources_hint(cdm_ctx *ctx, const char *spec_text);

#endif
