/*
 * What the *_win32.c files share: UTF-8 <-> UTF-16 at the Win32 boundary, the path form
 * every call gets, and error texts. Windows only; the core never includes it.
 */
#ifndef CDM_WIN32_UTIL_H
#define CDM_WIN32_UTIL_H

#include "base/util.h"
#include "cdm.h"

#include <stdbool.h>
#include <wchar.h>
#include <windows.h>

/* UTF-8 to UTF-16 and back, malloc'd. Invalid input never fails: bad bytes (or unpaired
 * surrogates) become U+FFFD, which then names no existing file. */
wchar_t *win_wide(const char *utf8);
char *win_narrow(const wchar_t *wide);

/* The form of a path that Win32 calls get: absolute (against the current folder or
 * drive), '/' turned into '\', "." and ".." resolved by name, and the \\?\ (\\?\UNC\)
 * prefix, which lifts MAX_PATH and stops Win32 from reinterpreting names (a trailing dot
 * or space, device names such as CON). */
wchar_t *win_path(const char *utf8);

/* A path for people and for the core: UTF-8 without the \\?\ prefix. */
char *win_display_path(const wchar_t *wide);

/* "\", "C:", "C:\", "\\server\share": folders cdm never creates or removes. */
bool win_is_root(const char *path);

/* The system's text for a Win32 error, lower case, without the full stop, with the
 * number: "access is denied (error 5)". malloc'd. */
char *win_error_text(DWORD code);
/* cdm_error_os for a Windows error: fmt's text, ": " and the text of error e
 * ("cannot open 'x': access is denied (error 5)"). */
int win_error(cdm_ctx *ctx, int code, DWORD e, const char *fmt, ...) CDM_PRINTF(4, 5);

/* Append one argument of a command line, quoted as the C runtime's parser reads it back
 * (CommandLineToArgvW's rules). */
struct strbuf;
void win_quote_arg(struct strbuf *sb, const char *arg);

/* True when running under Wine (ntdll exports wine_get_version). */
bool win_is_wine(void);

#endif
