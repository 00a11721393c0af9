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

/* Asks the file system too: in the test's scratch folder, a file symbolic link is made, a
 * file renamed over it (as fs_atomic_write_whole replaces one), and the folder removed.
 * Wine's junction patches keep the replaced link's metadata in a hidden folder that then
 * keeps its folder from being removed; NTFS leaves nothing. Such a folder, left by an
 * earlier run, is the answer again, untouched (one folder, never one a run; Wine hangs
 * listing what it hides there). */
#define LEFT_BEHIND                                                                                \
    "a file renamed over a link leaves the link's metadata behind there (Wine's junction "         \
    "patches keep it in a hidden folder that cannot be removed)"
const char *testenv_rename_over_link_unavailable(const char *scratch)
{
    const char *why = testenv_links_unavailable();
    if (why)
        return why;
    cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    char *base = path_join(scratch, "rename-over-link-probe");
    if (fs_kind(base) != FS_NONE) { /* NTFS leaves none: an earlier probe's, kept as is */
        free(base);
        return LEFT_BEHIND;
    }
    char *target = path_join(base, "target"), *link = path_join(base, "link");
    int rc = fs_mkdir_p(&ctx, base);
    if (!rc)
        rc = fs_atomic_write_whole(&ctx, target, "t", 1);
    if (!rc && fs_symlink(&ctx, target, link) != CDM_OK)
        why = "file symbolic links cannot be made in the scratch folder's volume";
    if (!rc && !why && fs_atomic_write_whole(&ctx, link, "new", 3) != CDM_OK)
        why = "a file cannot be renamed over a file symbolic link there";
    /* the two names it made, then the folder, without listing it: Wine's hidden folder is
     * not to be walked */
    fs_remove_file(&ctx, link);
    fs_remove_file(&ctx, target);
    if (!fs_remove_if_empty_dir(base) && !why && !rc)
        why = LEFT_BEHIND;
    if (rc)
        why = "no scratch folder could be made";
    error_state_free(&ctx.err);
    free(link);
    free(target);
    free(base);
    return why;
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
