/*
 * NTFS junctions as bytes: the REPARSE_DATA_BUFFER that FSCTL_SET_REPARSE_POINT takes and
 * FSCTL_GET_REPARSE_POINT returns (mount-point form). Pure and portable, so the exact bytes
 * are unit-tested on every platform; link_win32.c does the system calls.
 *
 * Layout (little endian): 0 tag u32, 4 data length u16, 6 reserved u16, 8 substitute name
 * offset, 10 its length, 12 print name offset, 14 its length (u16, bytes, relative to 16,
 * lengths without the NUL), 16 the names in UTF-16LE, each NUL-terminated.
 */
#ifndef CDM_JUNCTION_H
#define CDM_JUNCTION_H

#include <stddef.h>

#define JUNCTION_TAG_MOUNT_POINT 0xA0000003u
#define JUNCTION_TAG_SYMLINK     0xA000000Cu
#define JUNCTION_MAX_BUFFER      16384u /* MAXIMUM_REPARSE_DATA_BUFFER_SIZE */

/* The form a junction target is stored in: "X:\a\b" with backslashes, the drive letter in
 * upper case, no "\\?\" prefix, no empty, "." or ".." components, no trailing separator
 * (except "X:\"). '/' is read as '\'. Returns NULL and sets *out (malloc'd), or returns why
 * the path cannot be a junction's target. */
const char *junction_normalise(const char *target, char **out);

/* The whole buffer for a junction to target (UTF-8): substitute name "\??\" + the
 * normalised path, print name the normalised path. Returns NULL and sets *buf (malloc'd)
 * and *size (the DeviceIoControl input size), or returns why not. */
const char *junction_build(const char *target, unsigned char **buf, size_t *size);

enum junction_kind {
    JUNCTION_OURS,    /* a junction to a folder path: *target is set */
    JUNCTION_VOLUME,  /* a junction to "\??\Volume{GUID}": a volume mount point */
    JUNCTION_SYMLINK, /* a symbolic link: *target is set when it is absolute with a drive */
    JUNCTION_OTHER,   /* another reparse tag, or a substitute name cdm does not make */
    JUNCTION_INVALID, /* a truncated or inconsistent buffer */
};

/* Read a buffer from FSCTL_GET_REPARSE_POINT. For JUNCTION_OURS, and JUNCTION_SYMLINK to
 * an absolute "X:\..." path (the directory symbolic links cdm makes where junctions cannot
 * be), *target (malloc'd UTF-8) is the path without "\??\"; otherwise *target is NULL. */
enum junction_kind junction_parse(const unsigned char *buf, size_t size, char **target);

#endif
