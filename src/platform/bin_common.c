/* What elf.c and pe.c share: detection and freeing. Below both: choosing between them
 * by the file's magic is search.c's (bin_read_imports). */
#include "binfmt.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

enum bin_format bin_detect(FILE *f)
{
    unsigned char m[4] = {0};
    if (fseek(f, 0, SEEK_SET) != 0 || fread(m, 1, 4, f) != 4)
        return BIN_UNKNOWN;
    if (m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F')
        return BIN_ELF;
    if (m[0] == 'M' && m[1] == 'Z')
        return BIN_PE;
    return BIN_UNKNOWN;
}

void bin_imports_free(struct bin_imports *im)
{
    for (size_t i = 0; i < im->count; i++)
        free(im->needed[i]);
    free(im->needed);
    free(im->soname);
    free(im->runpath);
    free(im->rpath);
    memset(im, 0, sizeof(*im));
}
