/* What the file system API does the same way on both platforms, over their primitives. */
#include "fs.h"

#include <stdlib.h>
#include <string.h>

bool fs_read_file(const char *path, size_t max, struct strbuf *out)
{
    FILE *f = fs_fopen_read(path);
    if (!f)
        return false;
    bool ok = sb_read_stream(out, f, max);
    fclose(f);
    return ok;
}

bool fs_same_path(const char *a, const char *b)
{
    char *ra = fs_realpath(a), *rb = fs_realpath(b);
    bool same = ra && rb && !strcmp(ra, rb);
    free(ra);
    free(rb);
    return same;
}
