/*
 * Project links on Windows: NTFS junctions (IO_REPARSE_TAG_MOUNT_POINT), which need no
 * administrator rights. The buffer comes from junction.c; this file only makes the calls.
 * A new junction is made at a temporary name and moved in; an existing one is retargeted
 * in place, so its name never disappears.
 *
 * Where the volume refuses junctions (FAT, exFAT, many network shares, stock Wine) a
 * directory symbolic link is made instead, which works where the user may make one
 * (Developer Mode, or SeCreateSymbolicLinkPrivilege). One that stands is switched by a new
 * one made beside it, the old one removed, the new one moved in: a moment without a link,
 * since Windows renames no folder over another. Where neither can be made, link_set_or_none
 * says so, and the engine keeps the project without a link.
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
#ifndef SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE
#define SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE 0x2
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
    return win_error(ctx, CDM_EIO, code, "cannot %s '%s'", what, path);
}

static HANDLE open_reparse(const wchar_t *path, DWORD access)
{
    return CreateFileW(path, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                       OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS,
                       NULL);
}

/* What is at path: *jk the reparse point's kind (JUNCTION_OTHER for a real file or
 * folder), *kind as link_read gives it. */
static int read_kind(cdm_ctx *ctx, const char *path, enum link_kind *kind, enum junction_kind *jk,
                     char **target)
{
    *target = NULL;
    *jk = JUNCTION_OTHER;
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
        /* A junction to a folder, or a directory symbolic link to an absolute folder (the
         * fallback's), is read alike; volume mount points and relative links are not ours. */
        *jk = junction_parse(buf, got, target);
        *kind = *target ? LINK_OURS : LINK_FOREIGN;
    }
    free(buf);
    return rc;
}

int link_read(cdm_ctx *ctx, const char *path, enum link_kind *kind, char **target)
{
    enum junction_kind jk;
    return read_kind(ctx, path, kind, &jk, target);
}

/* Write the junction buffer into an existing empty folder or junction: 0, or the error. */
static DWORD try_reparse(const wchar_t *w, const unsigned char *buf, size_t size)
{
    HANDLE h = open_reparse(w, GENERIC_WRITE);
    if (h == INVALID_HANDLE_VALUE)
        return GetLastError();
    DWORD unused = 0;
    BOOL ok = DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, (void *)buf, (DWORD)size, NULL, 0,
                              &unused, NULL);
    DWORD e = ok ? 0 : GetLastError();
    CloseHandle(h);
    return e;
}

static int set_reparse(cdm_ctx *ctx, const wchar_t *w, const char *path, const unsigned char *buf,
                       size_t size)
{
    DWORD e = try_reparse(w, buf, size);
    return e ? fail(ctx, e, "make junction", path) : CDM_OK;
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
            return ww.held ? win_wait_fail(&ww, "cannot put link in place '%s'", path)
                           : fail(ctx, ww.last, "put link in place", path);
    return CDM_OK;
}

/* A directory symbolic link at wtmp (tmp) to norm, a normalised absolute folder; NULL, or
 * why not (malloc'd). It is read back: Wine 8 reports one made and makes nothing. */
static char *make_symlink(cdm_ctx *ctx, const wchar_t *wtmp, const char *tmp, const char *norm)
{
    wchar_t *wt = wide(norm);
    BOOLEAN ok = CreateSymbolicLinkW(
        wtmp, wt, SYMBOLIC_LINK_FLAG_DIRECTORY | SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE);
    DWORD e = GetLastError();
    if (!ok && e == ERROR_INVALID_PARAMETER) { /* Windows before 10 1703 knows no such flag */
        ok = CreateSymbolicLinkW(wtmp, wt, SYMBOLIC_LINK_FLAG_DIRECTORY);
        e = GetLastError();
    }
    free(wt);
    if (!ok && e == ERROR_PRIVILEGE_NOT_HELD)
        return xstrdup("this user may not make one (Developer Mode is off and the right to "
                       "create symbolic links is not held)");
    if (!ok)
        return win_error_text(e);
    enum link_kind kind;
    enum junction_kind jk;
    char *got = NULL;
    int rc = read_kind(ctx, tmp, &kind, &jk, &got);
    bool right = !rc && jk == JUNCTION_SYMLINK && got &&
                 CompareStringA(LOCALE_INVARIANT, NORM_IGNORECASE, got, -1, norm, -1) == CSTR_EQUAL;
    free(got);
    if (right)
        return NULL;
    if (!rc && jk == JUNCTION_SYMLINK)
        RemoveDirectoryW(wtmp); /* a link leading elsewhere: it goes, never its target */
    return xstrdup(!rc && kind == LINK_NONE ? "the system reported one made, but none is there"
                                            : "what the system made does not lead there");
}

/* The volume that holds w, for messages: "'X:\' (FAT32)"; malloc'd. */
static char *volume_name(const wchar_t *w)
{
    wchar_t root[MAX_PATH + 1], fs[MAX_PATH + 1];
    if (!GetVolumePathNameW(w, root, MAX_PATH))
        return xstrdup("this volume");
    char *r = win_narrow(root);
    char *f = GetVolumeInformationW(root, NULL, 0, NULL, NULL, NULL, fs, MAX_PATH) && fs[0]
                  ? win_narrow(fs)
                  : NULL;
    char *name = f ? xasprintf("'%s' (%s)", r, f) : xasprintf("'%s'", r);
    free(f);
    free(r);
    return name;
}

/* A new link at tmp (wtmp), for path: a junction in a new empty folder, else a directory
 * symbolic link. *none: neither can be made there, and the error says why. */
static int make_new(cdm_ctx *ctx, const wchar_t *wtmp, const char *tmp, const char *path,
                    const char *norm, const unsigned char *buf, size_t size, bool *none)
{
    if (!CreateDirectoryW(wtmp, NULL))
        return fail(ctx, GetLastError(), "create link", tmp);
    DWORD e = try_reparse(wtmp, buf, size);
    if (!e)
        return CDM_OK;
    RemoveDirectoryW(wtmp); /* still the empty folder we made */
    /* Any refusal on the empty folder just made is the volume's (FAT answers "invalid
     * function", shares and Wine 8 "not supported"): a symbolic link may still be made. */
    char *sym = make_symlink(ctx, wtmp, tmp, norm);
    if (!sym)
        return CDM_OK;
    char *junction = e == ERROR_NOT_SUPPORTED || e == ERROR_INVALID_FUNCTION
                         ? xstrdup("the file system does not support them")
                         : win_error_text(e);
    char *dir = path_dirname(path);
    wchar_t *wdir = wide(dir);
    char *vol = volume_name(wdir);
    *none = true;
    int rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "junctions and symbolic links cannot be made on %s (a junction: %s; "
                           "a symbolic link: %s)",
                           vol, junction, sym);
    free(vol);
    free(wdir);
    free(dir);
    free(junction);
    free(sym);
    return rc;
}

/* Remove the junction or directory symbolic link w (path): RemoveDirectoryW removes the
 * link, never what it leads to. */
static int remove_dir_link(cdm_ctx *ctx, const wchar_t *w, const char *path)
{
    struct win_wait ww = WIN_WAIT_INIT(ctx, path, false);
    while (!RemoveDirectoryW(w)) {
        DWORD e = GetLastError(); /* before win_read_only sets another */
        if (!win_wait_again(&ww, e, !win_read_only(w)))
            return ww.held ? win_wait_fail(&ww, "cannot remove link '%s'", path)
                           : fail(ctx, ww.last, "remove link", path);
    }
    return CDM_OK;
}

int link_set_or_none(cdm_ctx *ctx, const char *path, const char *target, bool *none)
{
    *none = false;
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
    char *norm = NULL;
    junction_normalise(target, &norm); /* junction_build took it */
    enum link_kind kind;
    enum junction_kind jk;
    char *old = NULL;
    int rc = read_kind(ctx, path, &kind, &jk, &old);
    free(old);
    wchar_t *w = wide(path);
    char *tmp = xasprintf("%s.cdm-%lu.tmp", path, (unsigned long)GetCurrentProcessId());
    wchar_t *wtmp = wide(tmp);
    if (rc)
        goto out;
    if (kind == LINK_FOREIGN) {
        rc = refuse_foreign(ctx, path);
    } else if (kind == LINK_OURS && jk == JUNCTION_OURS) {
        rc = set_reparse(ctx, w, path, buf, size); /* retarget in place */
    } else if (!(rc = make_new(ctx, wtmp, tmp, path, norm, buf, size, none))) {
        /* our symbolic link goes first: Windows moves no folder over another */
        if (kind == LINK_OURS)
            rc = remove_dir_link(ctx, w, path);
        if (!rc)
            rc = move_in(ctx, wtmp, w, path);
        if (rc)
            RemoveDirectoryW(wtmp); /* a link: this removes the link, never its target */
    }
out:
    free(wtmp);
    free(tmp);
    free(w);
    free(buf);
    free(norm);
    return rc;
}

int link_set(cdm_ctx *ctx, const char *path, const char *target)
{
    bool none;
    return link_set_or_none(ctx, path, target, &none);
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
                             "cannot unlink '%s': it is not a junction or symbolic link cdm "
                             "made; it was left alone",
                             path);
    wchar_t *w = wide(path);
    rc = w ? remove_dir_link(ctx, w, path) : fail(ctx, ERROR_INVALID_NAME, "remove link", path);
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
        struct saved_error sym = error_save(ctx);
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot link '%s' to '%s': no hard link (%s), and %s", path, target, why,
                           sym.message ? sym.message : "unknown error");
        free(sym.message);
    }
    free(why);
    return rc;
}
