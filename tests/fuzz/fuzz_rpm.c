/* libFuzzer: an RPM package's header read (rpm.c: the lead, the signature header skipped,
 * the header's index and store, its strings and integers within their bounds, every file's
 * path and digest), from a file holding the input, as cdm install reads a package before
 * unpacking it; every row then moved to its place in the install. */
#include "fuzz_file.h"
#include "engine/core/internal.h"
#include "engine/extract/rpm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("rpm", data, size);
    if (!path)
        return 0;
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct syspkg info;
    if (!rpm_read(&ctx, path, &info)) {
        char to[4096];
        for (size_t i = 0; i < info.count; i++)
            syspkg_select.map(info.rows[i].path, i & 1, to, sizeof(to));
    }
    syspkg_free(&info);
    error_state_free(&ctx.err);
    unlink(path);
    return 0;
}
