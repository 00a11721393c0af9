#include "testenv.h"
#include "platform/win32_util.h"

const char *testenv_links_unavailable(void)
{
    if (win_is_wine())
        return "Wine 8 has no junctions (FSCTL_SET_REPARSE_POINT answers ERROR_NOT_SUPPORTED); "
               "run this test on Windows";
    return NULL;
}
