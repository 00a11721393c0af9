/* The terminal, the clock and interrupts on POSIX, below every command that uses them;
 * chosen by meson, as term_win32.c is on Windows. */
#include "cli.h"

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The one context a signal handler may reach: a handler gets no argument. */
static cdm_ctx *interrupt_ctx;

static void on_signal(int sig)
{
    (void)sig;
    if (interrupt_ctx)
        cdm_interrupt(interrupt_ctx);
}

void cli_catch_interrupts(cdm_ctx *ctx)
{
    interrupt_ctx = ctx;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second signal kills as usual */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool cli_stderr_is_terminal(void)
{
    return isatty(STDERR_FILENO) == 1;
}

void cli_now(struct timespec *now)
{
    clock_gettime(CLOCK_MONOTONIC, now);
}

bool cli_stdout_is_terminal(void)
{
    return isatty(STDOUT_FILENO) == 1;
}

/* POSIX writes cmd's text only for tests and golden files: as it is, UTF-8. */
char *cli_text_for_cmd(const char *text, unsigned *code_page, const char **bad)
{
    *code_page = 65001;
    *bad = NULL;
    return xstrdup(text);
}
