/* libFuzzer: a Debian package read (deb.c: its ar members, control.tar.* in memory, control
 * and md5sums parsed, every md5sums row moved to its place in the install), from a file
 * holding the input, as cdm install reads a package before unpacking it; then where its
 * data.tar.* lies, as the install reads next. */
#include "fuzz_file.h"
#include "engine/core/internal.h"
#include "engine/extract/deb.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("deb", data, size);
    if (!path)
        return 0;
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct syspkg info;
    if (!deb_read(&ctx, path, &info)) {
        char to[4096];
        for (size_t i = 0; i < info.count; i++)
            syspkg_select.map(info.rows[i].path, i & 1, to, sizeof(to));
        uint64_t offset, length;
        deb_data_window(&ctx, path, &offset, &length);
    }
    syspkg_free(&info);
    error_state_free(&ctx.err);
    unlink(path);
    return 0;
}
