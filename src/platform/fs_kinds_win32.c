/* fs_kinds on Windows: one query per path (the projects of one user are few there; a
 * folder listing through FindFirstFileEx could replace it if that changes). */
#include "fs.h"

void fs_kinds(const char *const *paths, size_t n, enum fs_kind *kinds)
{
    for (size_t i = 0; i < n; i++)
        kinds[i] = fs_kind(paths[i]);
}
