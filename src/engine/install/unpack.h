/* Unpacking an install's file into its staging folder (unpack.c), for install.c and
 * install_parts.c. */
#ifndef CDM_UNPACK_H
#define CDM_UNPACK_H

#include "checksum.h"
#include "source_kinds.h"

/* Unpack the file at archive (of src's kind) into tmp (an empty folder), checking every
 * hash that applies on the way (sums: the whole file's), then the form's own list of its
 * files' hashes. beside: the files of the install's parts unpacked before (NULL: none).
 * arriving: the file is still downloading, read as it comes (NULL: it is whole). */
int install_unpack(cdm_ctx *ctx, const char *archive, const char *tmp, const struct source *src,
                   const struct checksums *sums, const struct extract_result *beside,
                   const struct arriving *arriving, struct extract_result *x);

#endif
