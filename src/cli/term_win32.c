/* The terminal, the clock and interrupts on Windows, below every command that uses them;
 * chosen by meson, as term_posix.c is elsewhere. */
#include "cli.h"

#include <time.h>
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

bool cli_stdout_is_terminal(void)
{
    return is_console(STD_OUTPUT_HANDLE);
}
