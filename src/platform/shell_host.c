/* The two systems' environment facts, portable so that tests on either can use both. */
#include "shell_host.h"
#include "base/util.h"

const struct shell_platform shell_platform_posix = {"LD_LIBRARY_PATH", ':', '/', false, false};
const struct shell_platform shell_platform_windows = {"PATH", ';', '\\', true, true};
