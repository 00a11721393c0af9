/*
 * The entry point on Windows: wmain receives the arguments in UTF-16 (the narrow argv
 * would be in the ANSI code page and lose every character outside it), and cdm runs on
 * their UTF-8 form. Output to a console is shown as UTF-8; to a file or pipe it is
 * UTF-8 bytes as on POSIX. Chosen by meson, as main_posix.c is elsewhere; the front end's
 * one file that calls Win32 itself (the engine's platform helpers are not its to use).
 */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <wchar.h>
#include <windows.h>

/* The one context the console's control handler (another thread) may reach. */
static cdm_ctx *volatile interrupt_ctx;

static BOOL WINAPI on_console_event(DWORD type)
{
    cdm_ctx *ctx = interrupt_ctx;
    if (!ctx || (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT && type != CTRL_CLOSE_EVENT))
        return FALSE;
    interrupt_ctx = NULL; /* a second one kills as usual */
    cdm_interrupt(ctx);
    if (type == CTRL_CLOSE_EVENT)
        Sleep(3000); /* the process ends when this returns: give the clean-up its time */
    return TRUE;
}

void cli_catch_interrupts(cdm_ctx *ctx)
{
    interrupt_ctx = ctx;
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

static UINT saved_output_cp;

static bool is_console(DWORD which)
{
    DWORD mode;
    HANDLE h = GetStdHandle(which);
    return h && h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode);
}

bool cli_stderr_is_terminal(void)
{
    return is_console(STD_ERROR_HANDLE);
}

void cli_now(struct timespec *now)
{
    /* milliseconds are plenty for ten progress updates a second */
    ULONGLONG ms = GetTickCount64();
    now->tv_sec = (time_t)(ms / 1000);
    now->tv_nsec = (long)(ms % 1000) * 1000000L;
}

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
    if (is_console(STD_OUTPUT_HANDLE) || is_console(STD_ERROR_HANDLE)) {
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
