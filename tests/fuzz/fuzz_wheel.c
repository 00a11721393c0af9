/* libFuzzer: a wheel's dist-info read (wheel.c: the zip's entries walked, METADATA, WHEEL
 * and RECORD parsed, RECORD's digests decoded), from a file holding the input, as cdm
 * install reads a wheel before unpacking it; then the RECORD check over a made-up result
 * naming the rows it found. */
#include "fuzz_file.h"
#include "engine/core/internal.h"
#include "engine/extract/wheel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("wheel", data, size);
    if (!path)
        return 0;
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct wheel_info w;
    if (!wheel_read(&ctx, path, NULL, &w)) {
        /* every row as if unpacked below nvidia/cudnn/, with its own hash and size */
        struct extract_result x;
        memset(&x, 0, sizeof(x));
        const struct listed *l = &w.files;
        x.files = xcalloc(l->count + 1, sizeof(*x.files));
        for (size_t i = 0; i < l->count; i++) {
            const char *rel = strchr(l->rows[i].path, '/');
            rel = rel && strchr(rel + 1, '/') ? strchr(rel + 1, '/') + 1 : l->rows[i].path;
            x.files[x.file_count++] =
                (struct db_file){rel, l->rows[i].size, l->rows[i].sha256, NULL, 0644};
        }
        wheel_check_record(&ctx, path, &w, &x);
        free(x.files);
    }
    wheel_info_free(&w);
    error_state_free(&ctx.err);
    unlink(path);
    return 0;
}
