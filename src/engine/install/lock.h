/* What other commands read of a project's cudnn.lock (lock.c; cdm lock itself is in
 * cdm_programs.h). */
#ifndef CDM_LOCK_H
#define CDM_LOCK_H

#include "internal.h"

/* The install id the project's cudnn.lock names ("9.1.0.70-cuda12") into id; CDM_ENOTFOUND
 * (no message) when the project has no lock, CDM_ECONFIG naming the file when it cannot be
 * read as one. */
int lock_install_id(cdm_ctx *ctx, const char *project, char *id, size_t size);

/* One platform's archive in the cudnn.lock of the folder dir (a project's, or a bundle's
 * copy of it), with the lock's version and CUDA major. CDM_ENOTFOUND, naming the file, when
 * there is no lock or it names no archive for platform; CDM_ECONFIG when it cannot be read. */
struct lock_archive {
    char version[32];
    int cuda;
    char archive[256]; /* its file name: no folder in it */
    unsigned long long size;
    char sha256[65];
};
int lock_archive_for(cdm_ctx *ctx, const char *dir, const char *platform, struct lock_archive *out);

#endif
