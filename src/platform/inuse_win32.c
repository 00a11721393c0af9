/*
 * Files in use on Windows (inuse.h), asked of the Restart Manager: a session, the files
 * registered as its resources, RmGetList for the processes holding them. Wine answers
 * with no process.
 */
#include "platform/inuse.h"
#include "platform/win32_util.h"
#include "base/util.h"

#include <restartmanager.h>
#include <stdlib.h>

char *inuse_holders(const char *const *paths, size_t n)
{
    DWORD session;
    WCHAR key[CCH_RM_SESSION_KEY + 1] = {0};
    if (!n || RmStartSession(&session, 0, key) != ERROR_SUCCESS)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    wchar_t **wide = xcalloc(n, sizeof(*wide));
    RM_PROCESS_INFO *info = NULL;
    for (size_t i = 0; i < n; i++)
        wide[i] = win_path(paths[i]);
    if (RmRegisterResources(session, (UINT)n, (LPCWSTR *)wide, 0, NULL, 0, NULL) != ERROR_SUCCESS)
        goto out;
    UINT needed = 0, count = 0;
    DWORD reasons = 0;
    DWORD e = RmGetList(session, &needed, &count, NULL, &reasons);
    if (e != ERROR_MORE_DATA || !needed)
        goto out;
    count = needed;
    info = xcalloc(count, sizeof(*info));
    if (RmGetList(session, &needed, &count, info, &reasons) != ERROR_SUCCESS)
        goto out;
    for (UINT i = 0; i < count; i++) {
        char *name = win_narrow(info[i].strAppName);
        sb_addf(&sb, "%s%s (pid %lu)", sb.len ? ", " : "", name,
                (unsigned long)info[i].Process.dwProcessId);
        free(name);
    }
out:
    RmEndSession(session);
    for (size_t i = 0; i < n; i++)
        free(wide[i]);
    free(wide);
    free(info);
    if (sb.len)
        return sb_detach(&sb);
    sb_free(&sb);
    return NULL;
}
