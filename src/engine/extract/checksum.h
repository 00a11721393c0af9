/* The checksums an archive must match before anything of it is installed. */
#ifndef CDM_CHECKSUM_H
#define CDM_CHECKSUM_H

#include "internal.h"

struct checksums {
    struct {
        char hex[65]; /* lower case */
        char *source; /* where it came from, for the message */
    } want[4];
    int count;
};

/* Every checksum that applies to archive: given (--sha256, may be NULL), a file
 * <archive>.sha256, a line for it in a SHA256SUMS file in its folder. Fails for a given
 * value that is no SHA-256, or a .sha256 file without one. */
int checksums_find(cdm_ctx *ctx, const char *archive, const char *given, struct checksums *out);
/* One more that applies: hex (64 digits and its NUL, a record's sha256 field) from source
 * (a download's manifest). */
void checksums_add(struct checksums *c, const char hex[65], const char *source);
/* CDM_ECHECKSUM, naming the archive and the source, when actual is not every one of them. */
int checksums_check(cdm_ctx *ctx, const struct checksums *c, const char *archive,
                    const char *actual);
void checksums_free(struct checksums *c);

#endif
