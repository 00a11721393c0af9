/*
 * An offline bundle's file (cdm bundle, cdm install --from-bundle): a plain (ustar) tar,
 * which every system reads (bsdtar is Windows' own tar.exe); written here, read with
 * libarchive.
 * Only regular files are written, and only the members asked for by their exact names are
 * read back, each into a file of its own: nothing in a bundle chooses where a byte goes.
 */
#ifndef CDM_BUNDLE_TAR_H
#define CDM_BUNDLE_TAR_H

#include "internal.h"

struct bundle_member {
    const char *name; /* in the tar: "archives/cudnn-...zip", "bin/windows-x86_64/cdm.exe" */
    const char *path; /* the file on the disk */
    bool executable;
};

/* Write the n members to a tar at path (written beside it, then renamed into place). */
int bundle_tar_write(cdm_ctx *ctx, const char *path, const struct bundle_member *m, size_t n);

/* Copy the members of the tar at path named names[0..n) into dir, as dir/<last part of the
 * name>; found[i] says whether names[i] was there. A member of such a name that is not a
 * regular file, or that comes twice, is refused; one larger than [install] max_size too. */
int bundle_tar_take(cdm_ctx *ctx, const char *path, const char *const *names, size_t n,
                    const char *dir, bool *found);

#endif
