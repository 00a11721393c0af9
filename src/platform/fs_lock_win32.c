/* The store's lock on Windows: LockFileEx over the whole lock file, dropped by Windows
 * when the process dies; and who owns a store's files. */
#include "fs.h"
#include "win32_util.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <aclapi.h>

struct fs_lock_handle {
    HANDLE h;
};

static int lock_with(cdm_ctx *ctx, const char *path, DWORD flags, struct fs_lock_handle **out)
{
    wchar_t *w = win_path(path);
    HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    DWORD e = GetLastError();
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return win_error(ctx, CDM_EIO, e, "cannot open lock file '%s'", path);
    /* The whole range; Windows drops it if the process dies. */
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | flags, 0, MAXDWORD, MAXDWORD, &ov)) {
        e = GetLastError();
        CloseHandle(h);
        if (e == ERROR_LOCK_VIOLATION && (flags & LOCKFILE_FAIL_IMMEDIATELY))
            return CDM_EBUSY;
        return win_error(ctx, CDM_EIO, e, "cannot lock '%s'", path);
    }
    struct fs_lock_handle *lock = xmalloc(sizeof(*lock));
    lock->h = h;
    *out = lock;
    return CDM_OK;
}

int fs_lock(cdm_ctx *ctx, const char *path, struct fs_lock_handle **out)
{
    return lock_with(ctx, path, 0, out);
}

int fs_lock_try(cdm_ctx *ctx, const char *path, struct fs_lock_handle **out)
{
    return lock_with(ctx, path, LOCKFILE_FAIL_IMMEDIATELY, out);
}

void fs_unlock(struct fs_lock_handle *lock)
{
    if (!lock)
        return;
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    UnlockFileEx(lock->h, 0, MAXDWORD, MAXDWORD, &ov);
    CloseHandle(lock->h);
    free(lock);
}

char *fs_owner_name(const char *path)
{
    wchar_t *w = win_path(path);
    PSID owner = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD e = GetNamedSecurityInfoW(w, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION, &owner, NULL,
                                    NULL, NULL, &sd);
    free(w);
    if (e != ERROR_SUCCESS)
        return NULL;
    wchar_t name[256], domain[256];
    DWORD n = 256, d = 256;
    SID_NAME_USE use;
    char *out = NULL;
    if (LookupAccountSidW(NULL, owner, name, &n, domain, &d, &use)) {
        char *u = win_narrow(name), *dom = win_narrow(domain);
        out = *dom ? xasprintf("%s\\%s", dom, u) : xstrdup(u);
        free(u);
        free(dom);
    }
    LocalFree(sd);
    return out;
}
