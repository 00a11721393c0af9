/* The entry point on POSIX: arguments are already bytes the file system takes. Chosen by
 * meson, as main_win32.c is on Windows. */
#include "cli.h"

#include <time.h>
#include <unistd.h>

bool cli_stderr_is_terminal(void)
{
    return isatty(STDERR_FILENO) == 1;
}

void cli_now(struct timespec *now)
{
    clock_gettime(CLOCK_MONOTONIC, now);
}

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
