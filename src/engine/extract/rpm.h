/*
 * cuDNN as NVIDIA's RPM packages (syspkg.h says what they hold and how they are split): a
 * lead, a signature header, a header, then a cpio payload (gzip, xz or zstd). What a package
 * says of itself is read from its header before anything is unpacked: NAME, VERSION,
 * RELEASE, ARCH, and every file's path (DIRNAMES, BASENAMES, DIRINDEXES) with its digest
 * (FILEDIGESTS, of FILEDIGESTALGO: SHA-256, or MD5 from old rpmbuilds). libarchive reads the
 * payload past the headers, which it skips.
 */
#ifndef CDM_RPM_H
#define CDM_RPM_H

#include "syspkg.h"

/* True for a name ending in .rpm. */
bool rpm_file_name(const char *file_name);

/* Read the package's header (untrusted, bounded) into out (syspkg_free). */
int rpm_read(cdm_ctx *ctx, const char *path, struct syspkg *out);

#endif
