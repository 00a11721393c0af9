/*
 * What a library file is, read without loading it: the store install it belongs to, or
 * the wheel or folder it came from, and the cuDNN version it carries.
 */
#ifndef CDM_LIBFILE_H
#define CDM_LIBFILE_H

#include "internal.h"

struct lib_origin {
    char install_id[64]; /* the store's install that holds the file; "" outside the store */
    char folder[4096];   /* the folder the file really is in (links resolved); cut short,
                          * with nothing else known, when its name is longer */
    char version[64];    /* "9.19.0.56", "9.19.0"; "" when unknown */
    char source[512];    /* what the version was read from, for people */
};

/* Where the file at path comes from. The store must be open (store_open). */
void lib_origin(cdm_ctx *ctx, const char *path, struct lib_origin *out);

/* Two version texts name the same release: their first three parts agree. */
bool lib_same_version(const char *a, const char *b);

#endif
