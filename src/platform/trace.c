/* Freeing a trace (shared by trace_posix.c and trace_win32.c). */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

void trace_result_free(struct trace_result *r)
{
    for (size_t i = 0; i < r->count; i++) {
        free(r->objects[i].path);
        free(r->objects[i].real_path);
        free(r->objects[i].asked);
        free(r->objects[i].asker);
    }
    free(r->objects);
    memset(r, 0, sizeof(*r));
}
