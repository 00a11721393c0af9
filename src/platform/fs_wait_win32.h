/*
 * Waiting out another program that holds a file open, for the *_win32.c files that rename
 * and delete. Antivirus scanners (Defender, McAfee), the Search indexer and sync clients
 * open fresh files for a moment without sharing deletion: a rename or delete then fails
 * with a sharing violation, a lock violation or "access denied" (a replaced file, or on
 * NTFS a folder above the file, still open; a file whose deletion is pending) until they
 * let go. Scanners have held a new tree for tens of seconds, so cdm waits up to
 * fs_set_retry_ms (60 s unless the engine says otherwise), backing off from 10 ms to 1 s,
 * and says once, after 2 s, what it is waiting for.
 *
 *   struct win_wait ww = WIN_WAIT_INIT(ctx, path, false);
 *   while (!MoveFileExW(...)) {
 *       DWORD e = GetLastError(); // before anything judging the denial sets another
 *       if (!win_wait_again(&ww, e, denial_may_pass(...)))
 *           return win_wait_fail(&ww, "cannot rename '%s' to '%s'", from, to);
 *   }
 */
#ifndef CDM_FS_WAIT_WIN32_H
#define CDM_FS_WAIT_WIN32_H

#include "base/util.h"
#include "cdm.h"

#include <stdbool.h>
#include <stdint.h>
#include <windows.h>

struct win_wait {
    cdm_ctx *ctx;      /* its warning says what is waited for */
    const char *shown; /* the path named there */
    bool folder;       /* shown is a folder: a file inside it is what is held */
    uint64_t start;    /* GetTickCount64 at the first failure, 0 before */
    unsigned step_ms;  /* the next pause */
    bool told;         /* the warning was given */
    bool held;         /* the last error was judged one that a holder causes */
    DWORD last;        /* the error win_wait_again last judged */
};
#define WIN_WAIT_INIT(ctx, shown, folder)                                                          \
    {                                                                                              \
        (ctx), (shown), (folder), 0, 10, false, false, 0                                           \
    }

/* Whether error e of a rename or delete is one that a program holding the file causes.
 * "Access denied" is also what a read-only file, a folder where a file should go or the
 * file's permissions answer for good: denial_may_pass says the caller saw none of those
 * (read-only is the attribute; permissions cannot be told apart and are waited out). */
bool win_held_error(DWORD e, bool denial_may_pass);
/* After a rename or delete failed with e: false when e stands (not a holder's error, or the
 * time is spent); else waits the next pause (warning once after 2 s) and returns true for
 * the caller to try again. */
bool win_wait_again(struct win_wait *ww, DWORD e, bool denial_may_pass);
/* win_error (CDM_EIO) for the error that ended the wait, the last one win_wait_again judged:
 * a holder's error says so and what to do. */
int win_wait_fail(const struct win_wait *ww, const char *fmt, ...) CDM_PRINTF(2, 3);
/* Whether the file at w carries the read-only attribute (false when it cannot be read). */
bool win_read_only(const wchar_t *w);

#endif
