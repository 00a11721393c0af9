/*
 * The DLL folders hook of an attached environment (dll_hook.h), as cdm attach and detach
 * keep it: written with the attachment, removed with it, and a record of the hook alone
 * settled when the environment has a cuDNN folder of its own again.
 */
#ifndef CDM_ATTACH_HOOK_H
#define CDM_ATTACH_HOOK_H

#include "db_attach.h"
#include "internal.h"

/* On Windows, the environment's hook naming a->target; when only_missing, written only
 * where none is (an environment attached before hooks were written gets one by attaching
 * again). out->hook names the .pth, out->hook_blocked an embedded Python's ._pth file that
 * keeps it from running. Elsewhere nothing. */
int attach_write_hook(cdm_ctx *ctx, const struct db_attachment *a, bool only_missing,
                      struct cdm_attach_result *out);
/* The hook goes with the environment's attachment (Windows only). */
int attach_remove_hook(cdm_ctx *ctx, const struct db_attachment *a);
/* An environment attached by its hook alone that has a cuDNN folder (folder) of its own now
 * (pip installed the wheel): that record is settled, the hook staying for the new one. */
int attach_drop_hook_only(cdm_ctx *ctx, const char *venv, const char *folder);

#endif
