/* Waiting out another program that holds a file open (fs_wait_win32.h). */
#include "fs.h"
#include "fs_wait_win32.h"
#include "win32_util.h"
#include "base/error.h"

#include <stdarg.h>
#include <stdlib.h>

/* The first warning comes after this much waiting: a scanner usually lets go sooner, and a
 * warning for every fresh file would drown what matters. */
#define TELL_AFTER_MS 2000
#define MAX_STEP_MS   1000

/* Set once by the engine, before any file work, from [windows] retry_seconds; read only
 * after that, threads included. */
static unsigned retry_ms = 60 * 1000;

void fs_set_retry_ms(unsigned ms)
{
    retry_ms = ms;
}

bool win_held_error(DWORD e, bool denial_may_pass)
{
    /* a folder's last file whose deletion is pending until its holder closes it */
    return e == ERROR_SHARING_VIOLATION || e == ERROR_LOCK_VIOLATION || e == ERROR_DIR_NOT_EMPTY ||
           (e == ERROR_ACCESS_DENIED && denial_may_pass);
}

bool win_read_only(const wchar_t *w)
{
    DWORD attr = GetFileAttributesW(w);
    return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_READONLY);
}

static unsigned seconds(unsigned ms)
{
    return (ms + 999) / 1000;
}

bool win_wait_again(struct win_wait *ww, DWORD e, bool denial_may_pass)
{
    ww->last = e;
    ww->held = win_held_error(e, denial_may_pass);
    if (!ww->held)
        return false;
    uint64_t now = GetTickCount64();
    if (!ww->start)
        ww->start = now;
    uint64_t waited = now - ww->start;
    if (waited >= retry_ms)
        return false;
    if (waited >= TELL_AFTER_MS && !ww->told) {
        ww->told = true;
        cdm_warn(ww->ctx,
                 ww->folder ? "a file in '%s' is held open by another program (an antivirus "
                              "scanner?); waiting up to %u s"
                            : "'%s' is held open by another program (an antivirus scanner?); "
                              "waiting up to %u s",
                 ww->shown, seconds(retry_ms));
    }
    unsigned pause = ww->step_ms;
    if (pause > retry_ms - waited)
        pause = (unsigned)(retry_ms - waited);
    Sleep(pause);
    ww->step_ms = ww->step_ms * 2 > MAX_STEP_MS ? MAX_STEP_MS : ww->step_ms * 2;
    return true;
}

int win_wait_fail(const struct win_wait *ww, const char *fmt, ...)
{
    char *text = win_error_text(ww->last);
    const char *holds = ww->last == ERROR_ACCESS_DENIED ? "may hold" : "holds";
    char *why = !ww->held ? xstrdup(text)
                : ww->start && retry_ms
                    ? xasprintf("%s, still after %u s: another program %s it open (an antivirus "
                                "scanner, the Search indexer, a sync client?); close it and try "
                                "again, or wait longer with [windows] retry_seconds in the "
                                "configuration",
                                text, seconds(retry_ms), holds)
                    : xasprintf("%s: another program %s it open (an antivirus scanner, the "
                                "Search indexer, a sync client?); try again, or let cdm wait "
                                "for it with [windows] retry_seconds in the configuration",
                                text, holds);
    va_list ap;
    va_start(ap, fmt);
    int rc = cdm_error_vset_why(ww->ctx, CDM_EIO, why, fmt, ap);
    va_end(ap);
    free(why);
    free(text);
    return rc;
}
