/* The user's default version (cdm.h, "the default version"): the choice as kept. */
#ifndef CDM_DEFAULT_H
#define CDM_DEFAULT_H

#include "internal.h"

struct default_choice {
    char root[4096]; /* the store it is in */
    char id[64];
};

/* The user's default; CDM_ENOTFOUND (no message) when none is set, CDM_ECONFIG naming the
 * file when it cannot be read as one. */
int default_read(cdm_ctx *ctx, struct default_choice *out);
/* The file that keeps it (malloc'd). */
char *default_file(const cdm_ctx *ctx);

#endif
