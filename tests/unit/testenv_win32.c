#include "testenv.h"
#include "engine/core/internal.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "platform/win32_util.h"

#include <stdlib.h>
#include <string.h>

/* Asks the file system, not the runtime: a junction is made and removed in a scratch
 * folder of the temporary folder (stock Wine 8 answers ERROR_NOT_SUPPORTED, a Wine with
 * the junction patches and NTFS make one). */
const char *testenv_links_unavailable(void)
{
    wchar_t wtmp[MAX_PATH];
    if (!GetTempPathW(MAX_PATH, wtmp))
        return "no temporary folder to try a junction in";
    cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    char *tmp = win_narrow(wtmp);
    char *base = xasprintf("%scdm-junction-probe-%lu", tmp, (unsigned long)GetCurrentProcessId());
    char *target = path_join(base, "target");
    char *link = path_join(base, "link");
    int rc = fs_mkdir_p(&ctx, target);
    if (rc == CDM_OK)
        rc = link_set(&ctx, link, target);
    if (rc == CDM_OK)
        link_remove(&ctx, link);
    fs_remove_tree(&ctx, base);
    error_state_free(&ctx.err);
    free(link);
    free(target);
    free(base);
    free(tmp);
    return rc == CDM_OK ? NULL
                        : "junctions cannot be made in the temporary folder's volume "
                          "(FSCTL_SET_REPARSE_POINT is refused)";
}

const char *testenv_rename_over_link_unavailable(void)
{
    return win_is_wine() ? "Wine's junction patches keep a replaced link's metadata (a hidden "
                           ".REPARSE_POINT folder that then cannot be removed)"
                         : testenv_links_unavailable();
}

/* _wputenv_s: cdm reads the C library's copy (_wgetenv), which SetEnvironmentVariableW
 * alone would leave stale. An empty value removes the variable. */
void testenv_setenv(const char *name, const char *value)
{
    wchar_t *n = win_wide(name), *v = win_wide(value ? value : "");
    _wputenv_s(n, v);
    free(n);
    free(v);
}
