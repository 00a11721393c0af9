/*
 * Read-only files on Windows, deleted and replaced with their attribute untouched
 * (fs_read_only_win32.c), and the NTFS-rules model the tests run cdm.exe under.
 */
#ifndef CDM_FS_READ_ONLY_WIN32_H
#define CDM_FS_READ_ONLY_WIN32_H

#include <stdbool.h>
#include <windows.h>

/* Delete the read-only file (or file link) w, leaving the attribute on its other hard
 * links: 0, or the error. */
DWORD win_delete_read_only(const wchar_t *w);
/* Rename the file from over the read-only file to, as rename(2) would, leaving the
 * attribute on to's other hard links: 0, or the error. */
DWORD win_rename_over_read_only(const wchar_t *from, const wchar_t *to);

/*
 * A model of what NTFS refuses and Wine allows, for the tests (CDM_TEST_NTFS_RULES=1 in
 * cdm.exe's environment; never set otherwise): a rename over a read-only file is refused,
 * as NTFS refuses it, and the one-step calls of Windows 10 1809 that Wine lacks (a POSIX
 * rename or delete that ignores the attribute) are performed as they would be. Wine already
 * refuses to delete a read-only file and shares attributes between hard links (as the Unix
 * mode), as NTFS does.
 */
bool ntfs_rules_on(void);
/* MoveFileExW, under the model refusing a replace of a read-only file (ERROR_ACCESS_DENIED). */
BOOL ntfs_move_file(const wchar_t *from, const wchar_t *to, DWORD flags);

#endif
