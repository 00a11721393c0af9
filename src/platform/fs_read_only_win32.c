/*
 * Deleting and replacing a read-only file on Windows without clearing its read-only
 * attribute. On NTFS every hard link to a file shares its attributes: a per-file attach's
 * links in a Python environment and a view's links are the store's own files by another
 * name, so clearing the attribute to delete one (what DeleteFileW needs) makes the store's
 * file writable too, and a rename over one is refused while the attribute is set.
 *
 * Windows 10 1809 and later do both in one step with the attribute untouched: a POSIX
 * delete and a POSIX rename that ignore the read-only attribute (FileDispositionInfoEx,
 * FileRenameInfoEx). Where those are missing (older Windows, a volume without them, Wine
 * 8), the delete goes through one handle: the attribute is cleared through it, the file
 * marked for deletion, the attribute set again, then the handle closed, so the other links
 * keep it (a moment without it that only a power cut inside those calls could freeze;
 * `cdm verify` reports a store file without it); and the rename is MoveFileExW (which Wine
 * allows), else that delete and then a rename into the free name.
 */
#include "fs.h"
#include "fs_read_only_win32.h"
#include "win32_util.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

/* The Ex classes and flags (Windows 10 1809), named here: older SDK headers gate them. */
#define CLASS_DISPOSITION_EX        ((FILE_INFO_BY_HANDLE_CLASS)21)
#define CLASS_RENAME_EX             ((FILE_INFO_BY_HANDLE_CLASS)22)
#define DISPOSITION_DELETE          0x1
#define DISPOSITION_POSIX           0x2
#define DISPOSITION_IGNORE_READONLY 0x10
#define RENAME_REPLACE              0x1
#define RENAME_POSIX                0x2
#define RENAME_IGNORE_READONLY      0x40

struct rename_ex {
    DWORD flags; /* FILE_RENAME_INFO's union of ReplaceIfExists and Flags */
    HANDLE root;
    DWORD name_bytes;
    WCHAR name[1];
};

#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

/* An error that says the call or its flags are unknown here, not that it was refused. */
static bool ex_unsupported(DWORD e)
{
    return e == ERROR_INVALID_PARAMETER || e == ERROR_NOT_SUPPORTED ||
           e == ERROR_INVALID_FUNCTION || e == ERROR_CALL_NOT_IMPLEMENTED ||
           e == ERROR_INVALID_LEVEL;
}

/* The delete through handle h (opened for DELETE and attributes), the attribute given back
 * before the handle closes. 0 or the error. */
static DWORD delete_keeping_attribute(HANDLE h)
{
    FILE_BASIC_INFO basic;
    if (!GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof(basic)))
        return GetLastError();
    DWORD had = basic.FileAttributes;
    DWORD cleared = had & ~(DWORD)FILE_ATTRIBUTE_READONLY;
    basic.FileAttributes = cleared ? cleared : FILE_ATTRIBUTE_NORMAL;
    if (!SetFileInformationByHandle(h, FileBasicInfo, &basic, sizeof(basic)))
        return GetLastError();
    FILE_DISPOSITION_INFO dispose = {TRUE};
    DWORD e = SetFileInformationByHandle(h, FileDispositionInfo, &dispose, sizeof(dispose))
                  ? 0
                  : GetLastError();
    basic.FileAttributes = had;
    SetFileInformationByHandle(h, FileBasicInfo, &basic, sizeof(basic));
    return e;
}

DWORD win_delete_read_only(const wchar_t *w)
{
    HANDLE h =
        CreateFileW(w, DELETE | FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, SHARE_ALL, NULL,
                    OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return GetLastError();
    /* Under the NTFS-rules model the Ex call is what is modelled: Wine has none. */
    DWORD e = ERROR_NOT_SUPPORTED;
    if (!ntfs_rules_on()) {
        struct {
            DWORD flags;
        } ex = {DISPOSITION_DELETE | DISPOSITION_POSIX | DISPOSITION_IGNORE_READONLY};
        e = SetFileInformationByHandle(h, CLASS_DISPOSITION_EX, &ex, sizeof(ex)) ? 0
                                                                                 : GetLastError();
    }
    if (e && ex_unsupported(e))
        e = delete_keeping_attribute(h);
    CloseHandle(h);
    return e;
}

/* The POSIX rename of from over to, ignoring to's attribute: 0, or the error. */
static DWORD rename_ex(const wchar_t *from, const wchar_t *to)
{
    HANDLE h = CreateFileW(from, DELETE | SYNCHRONIZE, SHARE_ALL, NULL, OPEN_EXISTING,
                           FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return GetLastError();
    size_t bytes = wcslen(to) * sizeof(wchar_t);
    size_t size = sizeof(struct rename_ex) + bytes;
    struct rename_ex *info = xcalloc(1, size);
    info->flags = RENAME_REPLACE | RENAME_POSIX | RENAME_IGNORE_READONLY;
    info->name_bytes = (DWORD)bytes;
    memcpy(info->name, to, bytes);
    DWORD e =
        SetFileInformationByHandle(h, CLASS_RENAME_EX, info, (DWORD)size) ? 0 : GetLastError();
    free(info);
    CloseHandle(h);
    return e;
}

DWORD win_rename_over_read_only(const wchar_t *from, const wchar_t *to)
{
    DWORD flags = MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH;
    if (ntfs_rules_on()) /* the model of the Ex rename: one step, the attribute untouched */
        return MoveFileExW(from, to, flags) ? 0 : GetLastError();
    DWORD e = rename_ex(from, to);
    if (!e || !ex_unsupported(e))
        return e;
    if (ntfs_move_file(from, to, flags))
        return 0;
    /* Refused for the attribute: free the name (the attribute kept on the other links),
     * then take it. A program opening the name in between finds no file. */
    if ((e = win_delete_read_only(to)) && e != ERROR_FILE_NOT_FOUND)
        return e;
    return MoveFileExW(from, to, MOVEFILE_WRITE_THROUGH) ? 0 : GetLastError();
}

int fs_file_read_only(const char *path)
{
    wchar_t *w = win_path(path);
    DWORD attr = GetFileAttributesW(w);
    free(w);
    if (attr == INVALID_FILE_ATTRIBUTES || (attr & FILE_ATTRIBUTE_DIRECTORY))
        return -1;
    return (attr & FILE_ATTRIBUTE_READONLY) ? 1 : 0;
}

/* ---- the NTFS-rules model ---------------------------------------------------------------- */

bool ntfs_rules_on(void)
{
    static int on = -1;
    if (on < 0) {
        wchar_t v[8];
        DWORD n = GetEnvironmentVariableW(L"CDM_TEST_NTFS_RULES", v, 8);
        on = n == 1 && v[0] == L'1';
    }
    return on == 1;
}

BOOL ntfs_move_file(const wchar_t *from, const wchar_t *to, DWORD flags)
{
    if (ntfs_rules_on() && (flags & MOVEFILE_REPLACE_EXISTING)) {
        DWORD attr = GetFileAttributesW(to);
        if (attr != INVALID_FILE_ATTRIBUTES && !(attr & FILE_ATTRIBUTE_DIRECTORY) &&
            (attr & FILE_ATTRIBUTE_READONLY)) {
            SetLastError(ERROR_ACCESS_DENIED); /* NTFS: a read-only file is not replaced */
            return FALSE;
        }
    }
    return MoveFileExW(from, to, flags);
}
