/*
 * The file system on Windows. cdm keeps UTF-8 inside; every Win32 call gets UTF-16 made
 * by win_path(), which also makes the path absolute and gives it the \\?\ prefix, so that
 * paths past MAX_PATH work and no component is reinterpreted (a trailing dot, "CON").
 */
#include "fs.h"
#include "fs_read_only_win32.h"
#include "fs_wait_win32.h"
#include "win32_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

/* A name surrogate reparse point (junction, symbolic link) stands for another path:
 * cdm treats it as a link. Other reparse points (cloud files, dedup) hold data. */
#define NAME_SURROGATE_BIT 0x20000000UL

static int not_found_or(DWORD e, int code)
{
    return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? CDM_ENOTFOUND : code;
}

static bool is_link_attr(const wchar_t *w, DWORD attr)
{
    if (!(attr & FILE_ATTRIBUTE_REPARSE_POINT))
        return false;
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileExW(w, FindExInfoBasic, &fd, FindExSearchNameMatch, NULL, 0);
    if (h == INVALID_HANDLE_VALUE)
        return true; /* unreadable tag: never enter it */
    FindClose(h);
    return (fd.dwReserved0 & NAME_SURROGATE_BIT) != 0;
}

enum fs_kind fs_kind(const char *path)
{
    wchar_t *w = win_path(path);
    DWORD attr = GetFileAttributesW(w);
    enum fs_kind k;
    if (attr == INVALID_FILE_ATTRIBUTES)
        k = FS_NONE;
    else if (is_link_attr(w, attr))
        k = FS_LINK;
    else if (attr & FILE_ATTRIBUTE_DIRECTORY)
        k = FS_DIR;
    else if (attr & FILE_ATTRIBUTE_DEVICE)
        k = FS_OTHER;
    else
        k = FS_FILE;
    free(w);
    return k;
}

int fs_mkdir(cdm_ctx *ctx, const char *path)
{
    wchar_t *w = win_path(path);
    BOOL ok = CreateDirectoryW(w, NULL);
    DWORD e = GetLastError();
    free(w);
    if (ok || (e == ERROR_ALREADY_EXISTS && fs_kind(path) == FS_DIR))
        return CDM_OK;
    return win_error(ctx, CDM_EIO, e, "cannot create folder '%s'", path);
}

int fs_mkdir_p(cdm_ctx *ctx, const char *path)
{
    if (fs_kind(path) == FS_DIR)
        return CDM_OK;
    char *parent = path_dirname(path);
    int rc = CDM_OK;
    /* Stop at ".", a root ("\" or "C:") and a UNC share: those are never made by cdm. */
    if (strcmp(parent, path) != 0 && strcmp(parent, ".") != 0 && !win_is_root(parent))
        rc = fs_mkdir_p(ctx, parent);
    free(parent);
    return rc ? rc : fs_mkdir(ctx, path);
}

/* A denial of a rename is for good where the destination is read-only or a folder (a
 * file never replaces one); else it may be a holder of either name (fs_wait_win32.h). */
static bool rename_denial_may_pass(const wchar_t *to)
{
    DWORD attr = GetFileAttributesW(to);
    return attr == INVALID_FILE_ATTRIBUTES ||
           !(attr & (FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_DIRECTORY));
}

int fs_rename(cdm_ctx *ctx, const char *from, const char *to)
{
    wchar_t *wf = win_path(from), *wt = win_path(to);
    /* REPLACE_EXISTING gives files rename(2)'s meaning; a folder never replaces one. */
    DWORD flags = MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH;
    bool folder = fs_kind(from) == FS_DIR;
    if (folder && fs_kind(to) != FS_NONE)
        flags = MOVEFILE_WRITE_THROUGH;
    /* on NTFS a folder cannot be renamed while a file inside it is open */
    struct win_wait ww = WIN_WAIT_INIT(ctx, from, folder);
    int rc = CDM_OK;
    /* A read-only file replaced as rename(2) replaces one: with its attribute left on its
     * other hard links (a store file an attach or a view links to by another name). */
    DWORD to_attr = folder ? INVALID_FILE_ATTRIBUTES : GetFileAttributesW(wt);
    bool over_read_only = to_attr != INVALID_FILE_ATTRIBUTES &&
                          (to_attr & FILE_ATTRIBUTE_READONLY) &&
                          !(to_attr & FILE_ATTRIBUTE_DIRECTORY);
    for (;;) {
        DWORD e = 0;
        if (over_read_only)
            e = win_rename_over_read_only(wf, wt);
        else if (!ntfs_move_file(wf, wt, flags))
            e = GetLastError();
        if (!e)
            break;
        if (!win_wait_again(&ww, e, rename_denial_may_pass(wt))) {
            rc = win_wait_fail(&ww, "cannot rename '%s' to '%s'", from, to);
            break;
        }
    }
    free(wf);
    free(wt);
    return rc;
}

/* Delete the file w (shown). The store's files carry the read-only attribute
 * (fs_seal_win32.c), and a deletion cdm decided on is not refused for it; nor is the
 * attribute taken off, which would take it off the file's other hard links too (the
 * store's file behind an attach's or a view's link): fs_read_only_win32.c. */
static int delete_file_w(cdm_ctx *ctx, const wchar_t *w, DWORD attr, const char *what,
                         const char *shown)
{
    bool read_only = attr & FILE_ATTRIBUTE_READONLY;
    struct win_wait ww = WIN_WAIT_INIT(ctx, shown, false);
    for (;;) {
        DWORD e = read_only ? win_delete_read_only(w) : DeleteFileW(w) ? 0 : GetLastError();
        if (!e || e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
            return CDM_OK; /* a pending deletion that completed while we waited */
        if (!win_wait_again(&ww, e, !win_read_only(w)))
            return win_wait_fail(&ww, "cannot %s '%s'", what, shown);
    }
}

static int remove_dir_w(cdm_ctx *ctx, const wchar_t *w, const char *what, const char *shown)
{
    struct win_wait ww = WIN_WAIT_INIT(ctx, shown, true);
    while (!RemoveDirectoryW(w)) {
        DWORD e = GetLastError();
        if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
            return CDM_OK;
        if (!win_wait_again(&ww, e, !win_read_only(w)))
            return win_wait_fail(&ww, "cannot %s '%s'", what, shown);
    }
    return CDM_OK;
}

static int remove_tree_w(cdm_ctx *ctx, const wchar_t *w, const char *shown)
{
    DWORD attr = GetFileAttributesW(w);
    if (attr == INVALID_FILE_ATTRIBUTES) {
        DWORD e = GetLastError();
        if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
            return CDM_OK;
        return win_error(ctx, CDM_EIO, e, "cannot inspect '%s'", shown);
    }
    /* Any reparse point is removed as itself: RemoveDirectoryW on a junction deletes the
     * junction, never what it points to. Entering it has wiped real data in other tools. */
    if (attr & FILE_ATTRIBUTE_REPARSE_POINT)
        return (attr & FILE_ATTRIBUTE_DIRECTORY)
                   ? remove_dir_w(ctx, w, "delete link", shown)
                   : delete_file_w(ctx, w, attr, "delete link", shown);
    if (!(attr & FILE_ATTRIBUTE_DIRECTORY))
        return delete_file_w(ctx, w, attr, "delete", shown);
    size_t n = wcslen(w);
    wchar_t *pattern = xmalloc((n + 3) * sizeof(wchar_t));
    memcpy(pattern, w, n * sizeof(wchar_t));
    memcpy(pattern + n, L"\\*", 3 * sizeof(wchar_t));
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileExW(pattern, FindExInfoBasic, &fd, FindExSearchNameMatch, NULL,
                                FIND_FIRST_EX_LARGE_FETCH);
    free(pattern);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        if (e != ERROR_FILE_NOT_FOUND)
            return win_error(ctx, CDM_EIO, e, "cannot read folder '%s'", shown);
    } else {
        int rc = CDM_OK;
        do {
            if (!wcscmp(fd.cFileName, L".") || !wcscmp(fd.cFileName, L".."))
                continue;
            size_t m = wcslen(fd.cFileName);
            wchar_t *child = xmalloc((n + m + 2) * sizeof(wchar_t));
            memcpy(child, w, n * sizeof(wchar_t));
            child[n] = L'\\';
            memcpy(child + n + 1, fd.cFileName, (m + 1) * sizeof(wchar_t));
            char *name = win_narrow(fd.cFileName);
            char *child_shown = path_join(shown, name);
            rc = remove_tree_w(ctx, child, child_shown);
            free(child_shown);
            free(name);
            free(child);
        } while (!rc && FindNextFileW(h, &fd));
        FindClose(h);
        if (rc)
            return rc;
    }
    return remove_dir_w(ctx, w, "delete folder", shown);
}

int fs_remove_tree(cdm_ctx *ctx, const char *path)
{
    wchar_t *w = win_path(path);
    int rc = remove_tree_w(ctx, w, path);
    free(w);
    return rc;
}

int fs_remove_file(cdm_ctx *ctx, const char *path)
{
    wchar_t *w = win_path(path);
    DWORD attr = GetFileAttributesW(w);
    int rc = attr == INVALID_FILE_ATTRIBUTES ? CDM_OK : delete_file_w(ctx, w, attr, "delete", path);
    free(w);
    return rc;
}

bool fs_remove_if_empty_dir(const char *path)
{
    if (fs_kind(path) != FS_DIR)
        return false; /* a junction is FS_LINK: never removed here */
    wchar_t *w = win_path(path);
    bool gone = RemoveDirectoryW(w) != 0; /* fails on a folder with anything in it */
    free(w);
    return gone;
}

int fs_sync_written(cdm_ctx *ctx, const char *dir)
{
    (void)ctx; /* fs_file_close flushed each file (FlushFileBuffers); see fs_sync_dir */
    (void)dir;
    return CDM_OK;
}

void fs_sync_dir(const char *dir)
{
    /* Nothing to do: NTFS journals its metadata, and a folder cannot be flushed through
     * Win32 (MOVEFILE_WRITE_THROUGH covers the renames). */
    (void)dir;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int fs_list_dir(cdm_ctx *ctx, const char *path, char ***names)
{
    wchar_t *w = win_path(path);
    size_t n = wcslen(w);
    w = xrealloc(w, (n + 3) * sizeof(wchar_t));
    memcpy(w + n, L"\\*", 3 * sizeof(wchar_t));
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileExW(w, FindExInfoBasic, &fd, FindExSearchNameMatch, NULL,
                                FIND_FIRST_EX_LARGE_FETCH);
    DWORD e = GetLastError();
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return win_error(ctx, not_found_or(e, CDM_EIO), e, "cannot read folder '%s'", path);
    size_t count = 0, cap = 16;
    char **v = xmalloc(cap * sizeof(*v));
    do {
        if (!wcscmp(fd.cFileName, L".") || !wcscmp(fd.cFileName, L".."))
            continue;
        if (count + 2 > cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        v[count++] = win_narrow(fd.cFileName);
    } while (FindNextFileW(h, &fd));
    FindClose(h);
    qsort(v, count, sizeof(*v), compare_names);
    v[count] = NULL;
    *names = v;
    return CDM_OK;
}

char *fs_realpath(const char *path)
{
    wchar_t *w = win_path(path);
    /* BACKUP_SEMANTICS opens folders too; without OPEN_REPARSE_POINT junctions are followed. */
    HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return NULL;
    DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    wchar_t *buf = n ? xmalloc((n + 1) * sizeof(wchar_t)) : NULL;
    DWORD got =
        buf ? GetFinalPathNameByHandleW(h, buf, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) : 0;
    CloseHandle(h);
    char *out = NULL;
    if (got && got <= n)
        out = win_display_path(buf);
    free(buf);
    return out;
}

char *fs_getcwd(void)
{
    DWORD n = GetCurrentDirectoryW(0, NULL);
    wchar_t *buf = xmalloc((n + 1) * sizeof(wchar_t));
    DWORD got = GetCurrentDirectoryW(n + 1, buf);
    char *out = got && got <= n ? win_display_path(buf) : xstrdup(".");
    free(buf);
    return out;
}

char *fs_absolute(const char *path)
{
    wchar_t *w = win_path(path);
    char *out = win_display_path(w);
    free(w);
    return out;
}

FILE *fs_fopen(const char *path, const char *mode)
{
    wchar_t *w = win_path(path);
    wchar_t *m = win_wide(mode);
    FILE *f = _wfopen(w, m);
    free(m);
    free(w);
    return f;
}

char *fs_getenv(const char *name)
{
    wchar_t *w = win_wide(name);
    const wchar_t *v = _wgetenv(w);
    free(w);
    return v ? win_narrow(v) : NULL;
}

struct fs_file {
    HANDLE h;
    char *path;
};

int fs_file_create(cdm_ctx *ctx, const char *path, bool executable, struct fs_file **out)
{
    (void)executable; /* Windows runs what its name says: no mode bit to set */
    wchar_t *w = win_path(path);
    /* CREATE_NEW fails on anything already there, a link included: nothing is followed. */
    HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    DWORD e = GetLastError();
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return win_error(ctx, CDM_EIO, e, "cannot create '%s'", path);
    struct fs_file *f = xmalloc(sizeof(*f));
    f->h = h;
    f->path = xstrdup(path);
    *out = f;
    return CDM_OK;
}

int fs_file_write(cdm_ctx *ctx, struct fs_file *f, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, wrote = 0;
        if (!WriteFile(f->h, p, chunk, &wrote, NULL))
            return win_error(ctx, CDM_EIO, GetLastError(), "cannot write '%s'", f->path);
        p += wrote;
        n -= wrote;
    }
    return CDM_OK;
}

int fs_file_close(cdm_ctx *ctx, struct fs_file *f)
{
    int rc = CDM_OK;
    if (!FlushFileBuffers(f->h))
        rc = win_error(ctx, CDM_EIO, GetLastError(), "cannot write '%s'", f->path);
    if (!CloseHandle(f->h) && !rc)
        rc = win_error(ctx, CDM_EIO, GetLastError(), "cannot write '%s'", f->path);
    free(f->path);
    free(f);
    return rc;
}

int fs_file_flush(cdm_ctx *ctx, struct fs_file *f)
{
    (void)ctx; /* fs_file_close flushes every file (FlushFileBuffers) */
    (void)f;
    return CDM_OK;
}

void fs_file_abort(struct fs_file *f)
{
    if (!f)
        return;
    CloseHandle(f->h);
    free(f->path);
    free(f);
}

int fs_file_mode(const char *path)
{
    (void)path; /* NTFS keeps no executable bit: nothing to record or compare */
    return -1;
}

unsigned fs_link_count(const char *path)
{
    wchar_t *w = win_path(path);
    HANDLE h =
        CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    NULL, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    free(w);
    BY_HANDLE_FILE_INFORMATION info;
    unsigned n = 0;
    if (h != INVALID_HANDLE_VALUE) {
        if (GetFileInformationByHandle(h, &info) &&
            !(info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)))
            n = (unsigned)info.nNumberOfLinks;
        CloseHandle(h);
    }
    return n;
}

int fs_symlink(cdm_ctx *ctx, const char *target, const char *path)
{
    /* Only Linux archives carry links (the .so chains), unpacked here for --platform. */
    wchar_t *w = win_path(path);
    wchar_t *t = win_wide(target);
    for (wchar_t *p = t; *p; p++)
        if (*p == L'/')
            *p = L'\\';
    BOOLEAN ok = CreateSymbolicLinkW(w, t, SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE);
    DWORD e = GetLastError();
    free(t);
    free(w);
    /* Wine 8 answers TRUE and makes nothing: a store missing its links is worse than an
     * error. */
    if (ok && fs_kind(path) == FS_NONE)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot create symbolic link '%s': the system reported success "
                             "but made nothing (Wine?); install this archive on Linux",
                             path);
    if (ok)
        return CDM_OK;
    if (e == ERROR_PRIVILEGE_NOT_HELD)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot create symbolic link '%s': Windows allows it only with "
                             "Developer Mode on or as administrator; turn on Developer Mode",
                             path);
    return win_error(ctx, CDM_EIO, e, "cannot create link '%s'", path);
}

int fs_hardlink(cdm_ctx *ctx, const char *existing, const char *path)
{
    wchar_t *we = win_path(existing), *wp = win_path(path);
    BOOL ok = CreateHardLinkW(wp, we, NULL);
    DWORD e = GetLastError();
    free(we);
    free(wp);
    return ok ? CDM_OK : win_error(ctx, CDM_EIO, e, "cannot create hard link '%s'", path);
}

char *fs_default_root(void)
{
    return xstrdup("C:\\cudnn_archive");
}

/* %VAR%\cdm\leaf, or the default root's leaf when VAR is unset */
static char *profile_file(const char *var, const char *leaf)
{
    char *dir = fs_getenv(var);
    char *out = dir && *dir ? xasprintf("%s\\cdm\\%s", dir, leaf)
                            : xasprintf("C:\\cudnn_archive\\%s", leaf);
    free(dir);
    return out;
}

char *fs_default_state(void)
{
    /* Local, not roaming: the state names this machine's folders. */
    return profile_file("LOCALAPPDATA", "state.db");
}

char *fs_default_config(void)
{
    return profile_file("APPDATA", "config.ini");
}

const char *fs_host_platform(void)
{
    /* NVIDIA ships Windows cuDNN for x86_64 only; Arm64 Windows runs it emulated. */
    return "windows-x86_64";
}

uint64_t fs_process_id(void)
{
    return (uint64_t)GetCurrentProcessId();
}

bool fs_process_running(uint64_t pid)
{
    if (!pid || pid > 0xffffffffu)
        return false;
    HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
    if (!h) /* access denied: it exists, another user's */
        return GetLastError() == ERROR_ACCESS_DENIED;
    bool running = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
    CloseHandle(h);
    return running;
}

void fs_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

void fs_crash_point(const char *name)
{
    char *at = fs_getenv("CDM_CRASH_AT");
    bool hit = at && !strcmp(at, name);
    free(at);
    /* TerminateProcess stops at once, running no atexit handler and flushing nothing,
     * like SIGKILL; 137 is the status a shell shows for a SIGKILL on POSIX. */
    if (hit)
        TerminateProcess(GetCurrentProcess(), 137);
}

int fs_seek(FILE *f, long long off, int whence)
{
    return _fseeki64(f, off, whence) == 0 ? 0 : -1;
}

long long fs_tell(FILE *f)
{
    return _ftelli64(f);
}
