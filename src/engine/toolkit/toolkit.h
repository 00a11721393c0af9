/*
 * The CUDA toolkit, found without running a build: the version a toolkit folder declares
 * (version.json, version.txt, or its nvcc), and the toolkit this environment points at.
 */
#ifndef CDM_TOOLKIT_H
#define CDM_TOOLKIT_H

#include "internal.h"

#include <stdbool.h>

struct toolkit_info {
    char version[64]; /* "12.4.1" */
    int major, minor;
    /* where the version was read, and why there: "'X/version.json' (CUDA_PATH)"; malloc'd,
     * NULL until found */
    char *source;
    const char *from; /* "version.json", "version.txt" or "nvcc" (static) */
};

/* The toolkit in folder dir, found through why ("CUDA_PATH"): its version.json
 * ("cuda": {"version": ...}), else version.txt, else bin/nvcc --version. out starts
 * zeroed or freed (toolkit_free) and needs toolkit_free after, found or not. */
bool toolkit_in_dir(const char *dir, const char *why, struct toolkit_info *out);

/* The toolkit a build here would use: CUDA_PATH, then CUDA_HOME, then nvcc on PATH. A
 * variable pointing into the store at store_root is passed over, but for its views (which
 * hold a toolkit): without a toolkit, activation points CUDA_PATH at the project's link,
 * which holds cuDNN, not a toolkit. As above for out. */
bool toolkit_find(const char *store_root, struct toolkit_info *out);
void toolkit_free(struct toolkit_info *t);

/* The toolkit --toolkit names: a folder (which must declare a version), or a version
 * ("13.0") that exactly one of the toolkits found (cdm_toolkits) starts with. */
int toolkit_resolve(cdm_ctx *ctx, const char *spec, struct cdm_toolkit *out);

#endif
