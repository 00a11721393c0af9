/*
 * A download in progress on Windows: see partial.h. LockFileEx locks byte ranges, and a
 * locked range cannot be read or written even through another handle of the same
 * process, so the lock covers one byte at the end of the 63-bit range, where no data
 * ever is. Every handle shares delete, so the holder can rename or delete the file while
 * others wait for it.
 */
#include "partial.h"
#include "win32_util.h"

#include <stdlib.h>

#define LOCK_OFFSET_LOW  0xFFFFFFFFu
#define LOCK_OFFSET_HIGH 0x7FFFFFFFu

struct fs_partial {
    HANDLE h;
    char *path;
    uint64_t size;
};

static int fail(cdm_ctx *ctx, DWORD e, const char *what, const char *path)
{
    return win_error(ctx, CDM_EIO, e, "cannot %s '%s'", what, path);
}

static OVERLAPPED at(uint64_t offset)
{
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.Offset = (DWORD)offset;
    ov.OffsetHigh = (DWORD)(offset >> 32);
    return ov;
}

/* Whether the path still names the file h has open. */
static bool same_file(HANDLE h, const wchar_t *w)
{
    HANDLE n = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (n == INVALID_HANDLE_VALUE)
        return false;
    BY_HANDLE_FILE_INFORMATION a, b;
    bool same = GetFileInformationByHandle(h, &a) && GetFileInformationByHandle(n, &b) &&
                a.dwVolumeSerialNumber == b.dwVolumeSerialNumber &&
                a.nFileIndexHigh == b.nFileIndexHigh && a.nFileIndexLow == b.nFileIndexLow;
    CloseHandle(n);
    return same;
}

int fs_partial_open(cdm_ctx *ctx, const char *path, bool wait, struct fs_partial **out,
                    uint64_t *size)
{
    *out = NULL;
    wchar_t *w = win_path(path);
    int rc = CDM_OK;
    /* A file deleted by its holder stays "delete pending" until its last handle closes,
     * and cannot be opened meanwhile: try again for a while. */
    for (int pending = 0;; pending++) {
        HANDLE h = CreateFileW(
            w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            NULL, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
        if (h == INVALID_HANDLE_VALUE) {
            DWORD e = GetLastError();
            if (e == ERROR_ACCESS_DENIED && pending < 250) {
                Sleep(20);
                continue;
            }
            rc = fail(ctx, e, "open", path);
            break;
        }
        OVERLAPPED ov = at(((uint64_t)LOCK_OFFSET_HIGH << 32) | LOCK_OFFSET_LOW);
        DWORD flags = LOCKFILE_EXCLUSIVE_LOCK | (wait ? 0 : LOCKFILE_FAIL_IMMEDIATELY);
        if (!LockFileEx(h, flags, 0, 1, 0, &ov)) {
            DWORD e = GetLastError();
            CloseHandle(h);
            rc = e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING ? CDM_EBUSY
                                                                    : fail(ctx, e, "lock", path);
            break;
        }
        if (!same_file(h, w)) {
            CloseHandle(h); /* renamed or deleted by the holder we waited for */
            continue;
        }
        /* a hard link to a file elsewhere would be truncated and written as the download goes */
        BY_HANDLE_FILE_INFORMATION info;
        if (GetFileInformationByHandle(h, &info) &&
            (info.nNumberOfLinks != 1 ||
             (info.dwFileAttributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY)))) {
            CloseHandle(h);
            rc = cdm_error_set(ctx, CDM_EIO,
                               "cannot use '%s': it is a link to another file, not a download "
                               "of cdm's own; move it away, then run the command again",
                               path);
            break;
        }
        LARGE_INTEGER n;
        if (!GetFileSizeEx(h, &n)) {
            DWORD e = GetLastError();
            CloseHandle(h);
            rc = fail(ctx, e, "read", path);
            break;
        }
        struct fs_partial *p = xmalloc(sizeof(*p));
        p->h = h;
        p->path = xstrdup(path);
        p->size = (uint64_t)n.QuadPart;
        *size = p->size;
        *out = p;
        break;
    }
    free(w);
    return rc;
}

long long fs_partial_read(cdm_ctx *ctx, struct fs_partial *p, uint64_t offset, void *buf, size_t n)
{
    OVERLAPPED ov = at(offset);
    DWORD got = 0;
    DWORD want = n > (1u << 30) ? (1u << 30) : (DWORD)n;
    if (!ReadFile(p->h, buf, want, &got, &ov)) {
        DWORD e = GetLastError();
        if (e == ERROR_HANDLE_EOF)
            return 0;
        return fail(ctx, e, "read", p->path);
    }
    return got;
}

int fs_partial_append(cdm_ctx *ctx, struct fs_partial *p, const void *buf, size_t n)
{
    const char *c = buf;
    while (n > 0) {
        OVERLAPPED ov = at(p->size);
        DWORD want = n > (1u << 30) ? (1u << 30) : (DWORD)n, done = 0;
        if (!WriteFile(p->h, c, want, &done, &ov))
            return fail(ctx, GetLastError(), "write", p->path);
        if (done == 0)
            return cdm_error_set(ctx, CDM_EIO, "cannot write '%s': nothing was written", p->path);
        c += done;
        n -= done;
        p->size += done;
    }
    return CDM_OK;
}

int fs_partial_truncate(cdm_ctx *ctx, struct fs_partial *p)
{
    LARGE_INTEGER zero;
    zero.QuadPart = 0;
    if (!SetFilePointerEx(p->h, zero, NULL, FILE_BEGIN) || !SetEndOfFile(p->h))
        return fail(ctx, GetLastError(), "truncate", p->path);
    p->size = 0;
    return CDM_OK;
}

int fs_partial_sync(cdm_ctx *ctx, struct fs_partial *p)
{
    if (!FlushFileBuffers(p->h))
        return fail(ctx, GetLastError(), "write to disk", p->path);
    return CDM_OK;
}

uint64_t fs_partial_size(const struct fs_partial *p)
{
    return p->size;
}

void fs_partial_close(struct fs_partial *p)
{
    if (!p)
        return;
    OVERLAPPED ov = at(((uint64_t)LOCK_OFFSET_HIGH << 32) | LOCK_OFFSET_LOW);
    UnlockFileEx(p->h, 0, 1, 0, &ov);
    CloseHandle(p->h);
    free(p->path);
    free(p);
}
