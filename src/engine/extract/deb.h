/*
 * cuDNN as NVIDIA's Debian packages (syspkg.h says what they hold and how they are split): an
 * ar archive of debian-binary, control.tar.* and data.tar.* (gzip, xz or zstd). What a package
 * says of itself is read from control.tar's control (Package, Version, Architecture) and
 * md5sums before anything is unpacked; data.tar is copied out into staging and unpacked.
 */
#ifndef CDM_DEB_H
#define CDM_DEB_H

#include "syspkg.h"

/* True for a name ending in .deb. */
bool deb_file_name(const char *file_name);

/* Read the package's control and md5sums (untrusted, bounded) into out (syspkg_free). */
int deb_read(cdm_ctx *ctx, const char *path, struct syspkg *out);

/* Where the package's data.tar.* lies in the file: *size bytes from *offset (an ar member is
 * stored as it is), checked against the member's own header. */
int deb_data_window(cdm_ctx *ctx, const char *path, uint64_t *offset, uint64_t *size);

#endif
