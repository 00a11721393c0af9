#include "testenv.h"

#include <stddef.h>
#include <stdlib.h>

const char *testenv_links_unavailable(void)
{
    return NULL;
}

const char *testenv_rename_over_link_unavailable(const char *scratch)
{
    (void)scratch;
    return NULL;
}

void testenv_setenv(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}
