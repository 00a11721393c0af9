#include "testenv.h"

#include <stddef.h>

const char *testenv_links_unavailable(void)
{
    return NULL;
}
