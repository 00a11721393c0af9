/* libFuzzer: a Debian package read (deb.c: its ar members, control.tar.* in memory, control
 * and md5sums parsed, every md5sums row moved to its place in the install), from a file
 * holding the input, as cdm install reads a package before unpacking it; then its
 * data.tar.* copied out, as the install does next. */
#include "engine/core/internal.h"
#include "engine/extract/deb.h"
#include "platform/fs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64], dir[64];
    if (!path[0]) {
        snprintf(path, sizeof(path), "/tmp/fuzz_deb.%ld", (long)getpid());
        snprintf(dir, sizeof(dir), "/tmp/fuzz_deb.%ld.d", (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct deb_info info;
    if (!deb_read(&ctx, path, &info)) {
        char to[4096];
        for (size_t i = 0; i < info.count; i++)
            deb_select.map(info.rows[i].path, i & 1, to, sizeof(to));
        char *payload = NULL;
        if (fs_mkdir(&ctx, dir) == CDM_OK && deb_payload(&ctx, path, dir, &payload) == CDM_OK)
            unlink(payload);
        free(payload);
        rmdir(dir);
    }
    deb_info_free(&info);
    error_state_free(&ctx.err);
    unlink(path);
    return 0;
}
