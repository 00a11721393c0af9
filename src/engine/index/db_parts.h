/*
 * The install_parts table: a package of a version that comes as several (NVIDIA's Debian
 * packages: runtime libraries, headers, development links) given without the one that
 * completes it. Its file is not copied: its path and SHA-256 are kept, and the package
 * that completes the install reads it again from there (install_parts.c).
 */
#ifndef CDM_DB_PARTS_H
#define CDM_DB_PARTS_H

#include "db.h"

struct db_part {
    char package[96]; /* libcudnn9-cuda-12 */
    char path[4096];  /* the file, absolute */
    char sha256[65];
};

/* Keep (or replace) the package's row for install id. */
int db_part_put(cdm_ctx *ctx, const char *id, const struct db_part *part);
/* The rows kept for id, in the order given (free *out). */
int db_parts_of(cdm_ctx *ctx, const char *id, struct db_part **out, size_t *count);
/* Forget one package of id (NULL: all of them). */
int db_parts_drop(cdm_ctx *ctx, const char *id, const char *package);

#endif
