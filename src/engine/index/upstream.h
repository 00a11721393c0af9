/*
 * Chained stores: [store] upstream names read-only stores below the user's own (a site's
 * tree on NFS, Lustre or CVMFS), as Spack's upstreams do. A version the user's store lacks
 * is found in the first upstream that has it, and a project is linked to it there: cdm
 * reads an upstream's index and files and never writes there (no lock, no recovery, no
 * install, remove or gc). Each upstream is opened on first use as a context of its own,
 * with no configuration (so no upstream of its own), its index immutable: read as it is
 * on disk, with no lock, and nothing written there (not even a write-ahead log's -shm).
 * Like [store] shared = read-only, this holds while nobody writes the upstream: a site
 * installs into it in a maintenance window, or into a copy it then switches in.
 */
#ifndef CDM_UPSTREAM_H
#define CDM_UPSTREAM_H

#include "internal.h"

/* The Nth upstream (0-based), opened; CDM_ENOTFOUND naming it when it is not there (a file
 * system not mounted) or holds no store. The context stays the caller's ctx's. */
int upstream_open(cdm_ctx *ctx, size_t n, cdm_ctx **out);

/* Which upstream path lies in (1-based), judged by the text alone (so also for an upstream
 * that is gone); 0 for none. */
int upstream_of_path(const cdm_ctx *ctx, const char *path);

/* An install by id: this store's index, else the first upstream that has it (out->upstream
 * then says which). CDM_ENOTFOUND when none has it. */
int db_install_find(cdm_ctx *ctx, const char *id, struct cdm_install_info *out);

/* The folder of install id: an upstream's when only an upstream has it, else this
 * store's (malloc'd). */
char *upstream_install_path(cdm_ctx *ctx, const char *id);

/* Every install of the upstreams whose id is not among the first *count of *all, appended
 * to *all (realloc'd). An upstream that cannot be opened is warned about and passed over. */
void upstream_add_installs(cdm_ctx *ctx, struct cdm_install_info **all, size_t *count);

/* The context whose index records in's files: ctx, or that of in's upstream. */
int upstream_owner(cdm_ctx *ctx, const struct cdm_install_info *in, cdm_ctx **out);

/* Refuse, naming it, a change to an install that lives in an upstream (CDM_EUNSUPPORTED). */
int upstream_refuse(cdm_ctx *ctx, const struct cdm_install_info *in, const char *what);

#endif
