/*
 * The entry point on Windows: wmain receives the arguments in UTF-16 (the narrow argv
 * would be in the ANSI code page and lose every character outside it), and cdm runs on
 * their UTF-8 form. Output to a console is shown as UTF-8; to a file or pipe it is
 * UTF-8 bytes as on POSIX. Chosen by meson, as main_posix.c is elsewhere; with term_win32.c
 * the front end's only files that call Win32 themselves (the engine's platform helpers
 * are not its to use).
 */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

static UINT saved_output_cp;

/* The code page belongs to the console window, shared with the shell that started cdm:
 * give the old one back. */
static void restore_console(void)
{
    fflush(stdout);
    fflush(stderr);
    if (saved_output_cp)
        SetConsoleOutputCP(saved_output_cp);
}

/* One argument in UTF-8; unpaired surrogates become U+FFFD, which names no file. */
static char *utf8_of(const wchar_t *wide)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
    char *s = xcalloc(n > 0 ? (size_t)n : 1, 1);
    if (n > 0)
        WideCharToMultiByte(CP_UTF8, 0, wide, -1, s, n, NULL, NULL);
    return s;
}

int wmain(int argc, wchar_t **wargv)
{
    if (cli_stdout_is_terminal() || cli_stderr_is_terminal()) {
        UINT cp = GetConsoleOutputCP();
        if (cp != CP_UTF8 && SetConsoleOutputCP(CP_UTF8)) {
            saved_output_cp = cp;
            atexit(restore_console);
        }
    }
    char **argv = xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++)
        argv[i] = utf8_of(wargv[i]);
    int rc = cli_main(argc, argv);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
    return rc;
}
