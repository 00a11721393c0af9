/* What both systems' toolkit places share (toolkit_host.h). */
#include "toolkit_host.h"
#include "base/util.h"

#include <stdlib.h>

void toolkit_place_add(struct toolkit_place **v, size_t *n, char *dir, char *why)
{
    ALLOC_GROW(*v, *n);
    (*v)[(*n)++] = (struct toolkit_place){dir, why};
}

void toolkit_places_free(struct toolkit_place *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].dir);
        free(v[i].why);
    }
    free(v);
}
