/* Activation never hides a CUDA toolkit (toolkit_kept.c). */
#ifndef CDM_ACTIVATE_TOOLKIT_H
#define CDM_ACTIVATE_TOOLKIT_H

#include "internal.h"

/* With no toolkit recorded with a's link: a toolkit the user's CUDA_PATH or CUDA_HOME named
 * before activation, else the first one cdm finds that the compatibility tables allow with
 * in, goes into a->cuda_path (a view of it with in on top, made under the store's lock
 * taken without waiting; where none can be made, a named toolkit as it is, with a
 * warning). Nothing found: a is left as it is. */
void activation_keep_toolkit(cdm_ctx *ctx, const struct cdm_install_info *in,
                             struct cdm_activation *a);

#endif
