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
#include <wchar.h>
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

/* One answer of the doctor's probe, one write: what came before a crash is in the pipe. */
static void write_answer(void *arg, const char *line)
{
    HANDLE out = arg;
    char buf[700];
    int n = snprintf(buf, sizeof(buf), "%s\n", line);
    DWORD done;
    if (n > 0)
        WriteFile(out, buf, (DWORD)(n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1), &done, NULL);
}

/* cdm CDM_PROBE_CHILD_ARG PATH: the doctor asking a library in a process of its own. A
 * crash there must end the process at once, with no error box waiting for a click. */
static int probe_child(const wchar_t *path)
{
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
    char *p = utf8_of(path);
    cdm_probe_answers(p, write_answer, GetStdHandle(STD_OUTPUT_HANDLE));
    free(p);
    return 0;
}

int wmain(int argc, wchar_t **wargv)
{
    if (argc == 3 && !wcscmp(wargv[1], L"" CDM_PROBE_CHILD_ARG))
        return probe_child(wargv[2]);
    cli_remember_shell_code_page(); /* before the change below */
    if (cli_stdout_is_terminal() || cli_stderr_is_terminal()) {
        UINT cp = GetConsoleOutputCP();
        if (cp != CP_UTF8 && SetConsoleOutputCP(CP_UTF8)) {
            saved_output_cp = cp;
            atexit(restore_console);
        }
    }
    /* cli_main takes the options out of argv in place (cli_take_options compacts it):
     * the strings are freed from a list of their own, each once */
    char **owned = xcalloc((size_t)argc + 1, sizeof(char *));
    char **argv = xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++)
        argv[i] = owned[i] = utf8_of(wargv[i]);
    int rc = cli_main(argc, argv);
    /* what is printed still lies in stdio's buffers until exit: out before the frees */
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < argc; i++)
        free(owned[i]);
    free(owned);
    free(argv);
    return rc;
}
