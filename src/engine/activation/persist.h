/*
 * The default version in the environment of new sessions (cdm default --persist): what is
 * written, where this system keeps it (platform/userenv.h), and what was there before, so
 * that --unpersist takes out exactly what was put in.
 */
#ifndef CDM_PERSIST_H
#define CDM_PERSIST_H

#include "internal.h"

/* Write install in's CUDA_PATH, CUDNN_PATH and loader path entry for new sessions; again
 * over an earlier persist, replacing its values. *changed: anything differs; where (size
 * bytes) says where it goes. */
int persist_apply(cdm_ctx *ctx, const struct cdm_install_info *in, bool dry_run, bool *changed,
                  char *where, size_t size);
/* Take out what persist_apply put in (nothing to do: *changed false). */
int persist_remove(cdm_ctx *ctx, bool dry_run, bool *changed);
/* Whether a persist is in place (its record exists), and where it wrote. */
bool persist_is_on(cdm_ctx *ctx);
void persist_where(const cdm_ctx *ctx, char *out, size_t size);

#endif
