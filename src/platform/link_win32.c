/*
 * Project links on Windows: NTFS junctions (IO_REPARSE_TAG_MOUNT_POINT), which need no
 * administrator rights. The buffer comes from junction.c; this file only makes the calls.
 * A new junction is made at a temporary name and moved in; an existing one is retargeted
 * in place, so its name never disappears.
 */
#include "fs.h"
#include "fs_wait_win32.h"
#include "junction.h"
#include "link.h"
#include "win32_util.h"

#include <windows.h>
#include <winioctl.h>

#include <stdlib.h>
#include <string.h>

/* mingw-w64 and MSVC without the WDK lack these. */
#ifndef FSCTL_SET_REPARSE_POINT
#define FSCTL_SET_REPARSE_POINT 0x000900A4
#endif
#ifndef FSCTL_GET_REPARSE_POINT
#define FSCTL_GET_REPARSE_POINT 0x000900A8
#endif
#ifndef ERROR_NOT_A_REPARSE_POINT
#define ERROR_NOT_A_REPARSE_POINT 4390L
#endif

/* UTF-8 to a malloc'd UTF-16 string; NULL on invalid UTF-8. */
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0)
        return NULL;
    wchar_t *w = xmalloc((size_t)n * sizeof(*w));
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

/* Errors of a reparse call: "not supported" means the file system has no junctions (FAT,
 * exFAT, network drives, Wine before 10.19). */
static int fail(cdm_ctx *ctx, DWORD code, const char *what, const char *path)
{
    if (code == ERROR_NOT_SUPPORTED || code == ERROR_INVALID_FUNCTION)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot %s '%s': junctions are unavailable on this file system; "
                             "put the project on an NTFS volume",
                             what, path);
    char *msg = win_error_text(code);
    int rc = cdm_error_set(ctx, CDM_EIO, "cannot %s '%s': %s", what, path, msg);
    free(msg);
    return rc;
}

static HANDLE open_reparse(const wchar_t *path, DWORD access)
{
    return CreateFileW(path, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                       OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS,
                       NULL);
}

int link_read(cdm_ctx *ctx, const char *path, enum link_kind *kind, char **target)
{
    *target = NULL;
    wchar_t *w = wide(path);
    if (!w)
        return cdm_error_set(ctx, CDM_EINVAL, "cannot read link '%s': not valid UTF-8", path);
    DWORD attrs = GetFileAttributesW(w);
    if (attrs == INVALID_FILE_ATTRIBUTES) {
        DWORD e = GetLastError();
        free(w);
        if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND) {
            *kind = LINK_NONE;
            return CDM_OK;
        }
        return fail(ctx, e, "read link", path);
    }
    if (!(attrs & FILE_ATTRIBUTE_REPARSE_POINT) || !(attrs & FILE_ATTRIBUTE_DIRECTORY)) {
        free(w);
        *kind = LINK_FOREIGN;
        return CDM_OK;
    }
    HANDLE h = open_reparse(w, 0);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return fail(ctx, GetLastError(), "read link", path);
    unsigned char *buf = xmalloc(JUNCTION_MAX_BUFFER);
    DWORD got = 0;
    BOOL ok =
        DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, buf, JUNCTION_MAX_BUFFER, &got, NULL);
    DWORD e = GetLastError();
    CloseHandle(h);
    int rc = CDM_OK;
    if (!ok && e == ERROR_NOT_A_REPARSE_POINT) {
        *kind = LINK_FOREIGN;
    } else if (!ok) {
        rc = fail(ctx, e, "read link", path);
    } else {
        /* Symbolic links and volume mount points are not what cdm makes: not ours. */
        *kind = junction_parse(buf, got, target) == JUNCTION_OURS ? LINK_OURS : LINK_FOREIGN;
    }
    free(buf);
    return rc;
}

/* Write the junction buffer into an existing empty folder or junction. */
static int set_reparse(cdm_ctx *ctx, const wchar_t *w, const char *path, const unsigned char *buf,
                       size_t size)
{
    HANDLE h = open_reparse(w, GENERIC_WRITE);
    if (h == INVALID_HANDLE_VALUE)
        return fail(ctx, GetLastError(), "open link", path);
    DWORD unused = 0;
    BOOL ok = DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, (void *)buf, (DWORD)size, NULL, 0,
                              &unused, NULL);
    DWORD e = GetLastError();
    CloseHandle(h);
    return ok ? CDM_OK : fail(ctx, e, "make junction", path);
}

static int refuse_foreign(cdm_ctx *ctx, const char *path)
{
    return cdm_error_set(ctx, CDM_EEXISTS,
                         "cannot link '%s': it is a real folder or file, or a link cdm does not "
                         "make (a symbolic link or a volume mount point); move it away or pass "
                         "another --name",
                         path);
}

/* A drive letter mapped to a network share: a junction there is made, but not followed. */
static bool on_mapped_drive(const char *target)
{
    if (!target[0] || target[1] != ':')
        return false;
    wchar_t root[4] = {(wchar_t)(unsigned char)target[0], L':', L'\\', 0};
    return GetDriveTypeW(root) == DRIVE_REMOTE;
}

/* Move the junction made at from to its name: a scanner or an indexer may hold either for
 * a moment (fs_wait_win32.h). */
static int move_in(cdm_ctx *ctx, const wchar_t *from, const wchar_t *to, const char *path)
{
    struct win_wait ww = WIN_WAIT_INIT(ctx, path, false);
    while (!MoveFileExW(from, to, MOVEFILE_WRITE_THROUGH))
        if (!win_wait_again(&ww, GetLastError(), true))
            return ww.held ? win_wait_fail(&ww, "cannot put link in place '%s': %s", path, NULL)
                           : fail(ctx, ww.last, "put link in place", path);
    return CDM_OK;
}

int link_set(cdm_ctx *ctx, const char *path, const char *target)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    const char *why = on_mapped_drive(target)
                          ? "is on a mapped network drive; junctions can only point to a local "
                            "volume"
                          : junction_build(target, &buf, &size);
    if (why)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot link '%s' to '%s': the target %s; copy the version into a "
                             "store on a local disk ('cdm --root C:\\cudnn_archive install "
                             "--from-store STORE VERSION', STORE the folder that holds it) and "
                             "link that",
                             path, target, why);
    enum link_kind kind;
    char *old = NULL;
    int rc = link_read(ctx, path, &kind, &old);
    free(old);
    wchar_t *w = wide(path);
    char *tmp = xasprintf("%s.cdm-%lu.tmp", path, (unsigned long)GetCurrentProcessId());
    wchar_t *wtmp = wide(tmp);
    if (rc)
        goto out;
    if (kind == LINK_FOREIGN) {
        rc = refuse_foreign(ctx, path);
    } else if (kind == LINK_OURS) {
        rc = set_reparse(ctx, w, path, buf, size); /* retarget in place */
    } else if (!CreateDirectoryW(wtmp, NULL)) {
        rc = fail(ctx, GetLastError(), "create link", tmp);
    } else if ((rc = set_reparse(ctx, wtmp, path, buf, size))) {
        RemoveDirectoryW(wtmp); /* still the empty folder we made */
    } else if ((rc = move_in(ctx, wtmp, w, path))) {
        RemoveDirectoryW(wtmp); /* a junction: this removes the link, never its target */
    }
out:
    free(wtmp);
    free(tmp);
    free(w);
    free(buf);
    return rc;
}

int link_remove(cdm_ctx *ctx, const char *path)
{
    enum link_kind kind;
    char *old = NULL;
    int rc = link_read(ctx, path, &kind, &old);
    free(old);
    if (rc || kind == LINK_NONE)
        return rc;
    if (kind == LINK_FOREIGN)
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "cannot unlink '%s': it is not a junction cdm made; it was left "
                             "alone",
                             path);
    wchar_t *w = wide(path);
    /* RemoveDirectoryW on a junction removes the junction, never what it points to. */
    struct win_wait ww = WIN_WAIT_INIT(ctx, path, false);
    if (!w)
        rc = fail(ctx, ERROR_INVALID_NAME, "remove link", path);
    while (w && !RemoveDirectoryW(w)) {
        DWORD e = GetLastError(); /* before win_read_only sets another */
        if (!win_wait_again(&ww, e, !win_read_only(w))) {
            rc = ww.held ? win_wait_fail(&ww, "cannot remove link '%s': %s", path, NULL)
                         : fail(ctx, ww.last, "remove link", path);
            break;
        }
    }
    free(w);
    return rc;
}

/* The volume and file index of the file path leads to. */
static bool file_id(const char *path, BY_HANDLE_FILE_INFORMATION *out)
{
    wchar_t *w = wide(path);
    HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return false;
    bool ok = GetFileInformationByHandle(h, out);
    CloseHandle(h);
    return ok;
}

bool link_same_file(const char *a, const char *b)
{
    BY_HANDLE_FILE_INFORMATION x, y;
    return file_id(a, &x) && file_id(b, &y) && x.dwVolumeSerialNumber == y.dwVolumeSerialNumber &&
           x.nFileIndexHigh == y.nFileIndexHigh && x.nFileIndexLow == y.nFileIndexLow;
}

int link_view_entry(cdm_ctx *ctx, const char *target, const char *path, bool dir)
{
    if (dir)
        return link_set(ctx, path, target); /* a junction: no rights needed */
    wchar_t *we = win_path(target), *wp = win_path(path);
    BOOL ok = CreateHardLinkW(wp, we, NULL);
    DWORD e = GetLastError();
    free(we);
    free(wp);
    if (ok)
        return CDM_OK;
    /* Another volume, or no write access to the target (a toolkit under Program Files):
     * a file symbolic link, which needs Developer Mode or an administrator. */
    char *why = win_error_text(e);
    int rc = fs_symlink(ctx, target, path);
    if (rc) {
        char *sym = xstrdup(cdm_error_message(ctx));
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot link '%s' to '%s': no hard link (%s), and %s", path, target, why,
                           sym);
        free(sym);
    }
    free(why);
    return rc;
}
