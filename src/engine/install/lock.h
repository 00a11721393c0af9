/* What other commands read of a project's cudnn.lock (lock.c; cdm lock itself is in
 * cdm_programs.h). */
#ifndef CDM_LOCK_H
#define CDM_LOCK_H

#include "internal.h"

/* The install id the project's cudnn.lock names ("9.1.0.70-cuda12") into id; CDM_ENOTFOUND
 * (no message) when the project has no lock, CDM_ECONFIG naming the file when it cannot be
 * read as one. */
int lock_install_id(cdm_ctx *ctx, const char *project, char *id, size_t size);

#endif
