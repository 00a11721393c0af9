/* libFuzzer: a conda package's info/ read (conda.c: a .tar.bz2's tar, or a .conda's zip and
 * its info-*.tar.zst, index.json and paths.json parsed), from a file holding the input, as
 * cdm install reads a package before unpacking it; then the paths.json check over a
 * made-up result naming the rows it found. */
#include "fuzz_file.h"
#include "engine/core/internal.h"
#include "engine/extract/conda.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("conda", data, size);
    if (!path)
        return 0;
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct conda_info info;
    if (!conda_read(&ctx, path, &info)) {
        struct extract_result x;
        memset(&x, 0, sizeof(x));
        const struct listed *l = &info.files;
        x.files = xcalloc(l->count + 1, sizeof(*x.files));
        for (size_t i = 0; i < l->count; i++)
            x.files[x.file_count++] =
                (struct db_file){l->rows[i].path, l->rows[i].size, l->rows[i].sha256,
                                 l->rows[i].link ? l->rows[i].path : NULL, 0644};
        conda_check_paths(&ctx, path, &info, &x);
        conda_select(&info);
        free(x.files);
    }
    conda_info_free(&info);
    error_state_free(&ctx.err);
    unlink(path);
    return 0;
}
