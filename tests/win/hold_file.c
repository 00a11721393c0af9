/*
 * A stand-in for an antivirus scanner, the Search indexer or a sync client: it opens a
 * file as they do, sharing reading and writing but not deletion, so that renaming or
 * deleting the file (or, on NTFS, renaming a folder above it) fails while it is open.
 *
 *   hold_file PATH SECONDS
 *
 * Prints "held" once the file is open, holds it SECONDS seconds, closes it and exits 0;
 * exits 1 naming the file when it cannot be opened.
 *
 * Windows only: wmain takes the path in UTF-16, as cdm.exe does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

int wmain(int argc, wchar_t **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: hold_file PATH SECONDS\n");
        return 2;
    }
    /* FILE_FLAG_BACKUP_SEMANTICS lets a folder be held too */
    HANDLE h = CreateFileW(argv[1], GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        fprintf(stderr, "hold_file: cannot open '%ls': error %lu\n", argv[1],
                (unsigned long)GetLastError());
        return 1;
    }
    printf("held\n");
    fflush(stdout);
    Sleep((DWORD)wcstoul(argv[2], NULL, 10) * 1000);
    CloseHandle(h);
    return 0;
}
