/* The entry point on POSIX: arguments are already bytes the file system takes. Chosen by
 * meson, as main_win32.c is on Windows. */
#include "cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
