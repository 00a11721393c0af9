/* libFuzzer: the binary readers: a library's imports (ELF and PE) and the glibc loader
 * cache, on any bytes. */
#define _GNU_SOURCE /* fmemopen */
#include "platform/binfmt.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fmemopen((void *)data, size, "rb");
    if (f) {
        struct bin_imports im = {0};
        bin_read_imports(f, &im);
        bin_imports_free(&im);
        fclose(f);
    }
    struct ldcache cache = {0};
    if (ldcache_parse(data, size, &cache))
        ldcache_free(&cache);
    return 0;
}
