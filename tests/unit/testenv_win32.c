#include "testenv.h"
#include "platform/win32_util.h"

#include <stdlib.h>

const char *testenv_links_unavailable(void)
{
    if (win_is_wine())
        return "Wine 8 has no junctions (FSCTL_SET_REPARSE_POINT answers ERROR_NOT_SUPPORTED); "
               "run this test on Windows";
    return NULL;
}

/* _wputenv_s: cdm reads the C library's copy (_wgetenv), which SetEnvironmentVariableW
 * alone would leave stale. An empty value removes the variable. */
void testenv_setenv(const char *name, const char *value)
{
    wchar_t *n = win_wide(name), *v = win_wide(value ? value : "");
    _wputenv_s(n, v);
    free(n);
    free(v);
}
