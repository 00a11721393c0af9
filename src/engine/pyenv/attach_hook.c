/* The DLL folders hook of an attached environment (attach_hook.h). */
#include "attach_hook.h"
#include "dll_hook.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

/* On Windows, the environment's DLL folders hook (dll_hook.h) naming a->target; when
 * only_missing, written only where none is (an environment attached before hooks were
 * written gets one by attaching again). out->hook names the .pth, and out->hook_blocked an
 * embedded Python's ._pth file that keeps it from running. */
int attach_write_hook(cdm_ctx *ctx, const struct db_attachment *a, bool only_missing,
                      struct cdm_attach_result *out)
{
    if (!fs_host_is_windows())
        return CDM_OK;
    char *site = dll_hook_site(a->venv);
    char **had = site ? dll_hook_read(site) : NULL;
    char *dirs[] = {(char *)a->target, NULL};
    int rc = CDM_OK;
    if (site && !(only_missing && had))
        rc = dll_hook_write(ctx, site, dirs);
    if (!rc && site) {
        char *pth = path_join(site, DLL_HOOK_PTH);
        rc = copy_path(ctx, out->hook, sizeof(out->hook), pth);
        free(pth);
        dll_hook_blocked(a->venv, out->hook_blocked, sizeof(out->hook_blocked));
    }
    strv_free(had);
    free(site);
    return rc;
}

/* The hook goes with the environment's attachment (Windows only). */
int attach_remove_hook(cdm_ctx *ctx, const struct db_attachment *a)
{
    char *site = fs_host_is_windows() ? dll_hook_site(a->venv) : NULL;
    int rc = site ? dll_hook_remove(ctx, site) : CDM_OK;
    free(site);
    return rc;
}

/* An environment attached by its hook alone that has a cuDNN folder of its own now (pip
 * installed the wheel): that record is settled, the hook staying for the new one. */
int attach_drop_hook_only(cdm_ctx *ctx, const char *venv, const char *folder)
{
    struct db_attachment *old = xcalloc(1, sizeof(*old));
    int rc = db_attach_current_of_venv(ctx, venv, old);
    if (rc == CDM_OK && !old->original[0] && strcmp(old->folder, folder))
        rc = db_attach_set_state(ctx, old->id, "detached");
    free(old);
    return rc == CDM_ENOTFOUND ? CDM_OK : rc;
}
