/* Freeing a loader search order (shared by both platforms' loader files). */
#include "loader.h"

#include <stdlib.h>
#include <string.h>

void search_free(struct search *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->steps[i].dir);
    free(s->steps);
    ldcache_free(&s->cache);
    memset(s, 0, sizeof(*s));
}
