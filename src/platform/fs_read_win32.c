/* Reading files on Windows: sequentially (archives, another store's files) and whole (small
 * files a user or a repository controls), never from what is not a disk file. */
/* The system's headers before cdm's: mingw's io.h has inline functions that call strncpy,
 * which base/banned.h makes an error once it is read. */
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

#include "fs.h"
#include "win32_util.h"

static int not_found_or(DWORD e, int code)
{
    return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? CDM_ENOTFOUND : code;
}

struct fs_reader {
    HANDLE h;
    char *path;
};

int fs_reader_open(cdm_ctx *ctx, const char *path, struct fs_reader **out, uint64_t *size)
{
    wchar_t *w = win_path(path);
    /* Sharing write too: a finished download is installed from its .partial, which the
     * downloading process still holds open (for its lock). What is read is hashed. */
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, NULL);
    DWORD e = GetLastError();
    DWORD attr = GetFileAttributesW(w);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
            return cdm_error_set(ctx, CDM_EINVAL, "cannot read '%s': not a regular file", path);
        return win_error(ctx, not_found_or(e, CDM_EIO), e, "cannot open '%s'", path);
    }
    LARGE_INTEGER li;
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileSizeEx(h, &li)) {
        CloseHandle(h);
        return cdm_error_set(ctx, CDM_EINVAL, "cannot read '%s': not a regular file", path);
    }
    struct fs_reader *r = xmalloc(sizeof(*r));
    r->h = h;
    r->path = xstrdup(path);
    *out = r;
    if (size)
        *size = (uint64_t)li.QuadPart;
    return CDM_OK;
}

int fs_reader_open_below(cdm_ctx *ctx, const char *dir, const char *rel, struct fs_reader **out,
                         uint64_t *size)
{
    /* Each folder on the way is looked at without following it; the file is opened as the
     * reparse point itself, so a junction or link put there meanwhile is seen, not read. */
    char *full = path_join(dir, rel);
    size_t base = strlen(full) - strlen(rel);
    int rc = CDM_OK;
    for (char *slash = strchr(full + base, '/'); slash && !rc; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (fs_kind(full) != FS_DIR)
            rc = cdm_error_set(ctx, CDM_EINVAL,
                               "cannot read '%s/%s': '%s' is a link or no folder; cdm follows no "
                               "link in that tree",
                               dir, rel, full + base);
        *slash = '/';
    }
    HANDLE h = INVALID_HANDLE_VALUE;
    if (rc)
        goto out;
    wchar_t *w = win_path(full);
    h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                    OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    DWORD e = GetLastError();
    free(w);
    BY_HANDLE_FILE_INFORMATION info;
    LARGE_INTEGER li;
    if (h == INVALID_HANDLE_VALUE)
        rc = win_error(ctx, not_found_or(e, CDM_EIO), e, "cannot open '%s'", full);
    else if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
             (info.dwFileAttributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY)) ||
             !GetFileSizeEx(h, &li))
        rc = cdm_error_set(ctx, CDM_EINVAL,
                           "cannot read '%s': it is a link, a folder or no regular file; cdm "
                           "follows no link in that tree",
                           full);
    if (rc)
        goto out;
    struct fs_reader *r = xmalloc(sizeof(*r));
    r->h = h;
    r->path = full;
    full = NULL;
    h = INVALID_HANDLE_VALUE;
    *out = r;
    if (size)
        *size = (uint64_t)li.QuadPart;
out:
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    free(full);
    return rc;
}

long long fs_reader_read(cdm_ctx *ctx, struct fs_reader *r, void *buf, size_t n)
{
    DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, got = 0;
    if (!ReadFile(r->h, buf, chunk, &got, NULL))
        return win_error(ctx, CDM_EIO, GetLastError(), "cannot read '%s'", r->path);
    return (long long)got;
}

long long fs_reader_seek(cdm_ctx *ctx, struct fs_reader *r, long long offset, int whence)
{
    static const DWORD methods[] = {FILE_BEGIN, FILE_CURRENT, FILE_END};
    LARGE_INTEGER to = {.QuadPart = offset}, at;
    if (!SetFilePointerEx(r->h, to, &at, methods[whence < 0 || whence > 2 ? 0 : whence]))
        return win_error(ctx, CDM_EIO, GetLastError(), "cannot seek in '%s'", r->path);
    return (long long)at.QuadPart;
}

void fs_reader_close(struct fs_reader *r)
{
    if (!r)
        return;
    CloseHandle(r->h);
    free(r->path);
    free(r);
}

int fs_read_regular(cdm_ctx *ctx, const char *path, size_t max, struct strbuf *out)
{
    enum fs_kind kind = fs_kind(path);
    if (kind == FS_NONE)
        return cdm_error_set(ctx, CDM_ENOTFOUND, "'%s': no such file", path);
    if (kind == FS_DIR || kind == FS_OTHER)
        return cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it is %s", path,
                             kind == FS_DIR ? "a folder" : "a device");
    wchar_t *w = win_path(path);
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    DWORD e = GetLastError();
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return win_error(ctx, CDM_EIO, e, "cannot read '%s'", path);
    int rc = CDM_OK;
    LARGE_INTEGER size;
    /* A pipe or a console opened by name is no disk file: never read from it. */
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileSizeEx(h, &size)) {
        rc = cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it is not a regular file", path);
    } else if ((unsigned long long)size.QuadPart > max) {
        rc = cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it is %lld bytes, more than %zu", path,
                           (long long)size.QuadPart, max);
    } else {
        char buf[4096];
        size_t start = out->len;
        DWORD n;
        while (!rc && ReadFile(h, buf, sizeof(buf), &n, NULL) && n > 0) {
            sb_addn(out, buf, n);
            if (out->len - start > max)
                rc = cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it grew past %zu bytes", path,
                                   max);
        }
    }
    CloseHandle(h);
    return rc;
}

FILE *fs_fopen_read(const char *path)
{
    /* CreateFileW first: a pipe or a console opened by name is no disk file, never read */
    wchar_t *w = win_path(path);
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return NULL;
    if (GetFileType(h) != FILE_TYPE_DISK) {
        CloseHandle(h);
        return NULL;
    }
    int fd = _open_osfhandle((intptr_t)h, _O_RDONLY | _O_BINARY);
    if (fd < 0) {
        CloseHandle(h);
        return NULL;
    }
    FILE *f = _fdopen(fd, "rb");
    if (!f)
        _close(fd);
    return f;
}
