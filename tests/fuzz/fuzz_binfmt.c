/* libFuzzer: the binary readers: a library's imports (ELF and PE), a DLL's version
 * resource and the glibc loader cache, on any bytes. */
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
        char version[64];
        pe_read_file_version(f, version, sizeof(version));
        fclose(f);
    }
    struct ldcache cache = {0};
    if (ldcache_parse(data, size, &cache))
        ldcache_free(&cache);
    return 0;
}
