/* Activation facts on POSIX: LD_LIBRARY_PATH; the shell is named by $SHELL, not found here. */
#include "shell_host.h"
#include "base/util.h"

#include <stddef.h>

const struct shell_platform *shell_host_platform(void)
{
    return &shell_platform_posix;
}

const char *shell_parent_name(void)
{
    return NULL;
}
