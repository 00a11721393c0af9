/* libFuzzer: cdm's own reading of a zip (zip_directory.c) and the inflating of every entry
 * it finds (zip_pipe.c, inflate.c: zlib here, as CDM_TEST_INFLATE says, and ISA-L where it
 * loads), from a file holding the input, as the workers of zip_extract.c read an archive. */
#include "engine/core/internal.h"
#include "engine/extract/inflate.h"
#include "engine/extract/zip_pipe.h"
#include "platform/fs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int take(void *arg, cdm_ctx *ctx, const unsigned char *buf, size_t n)
{
    (void)ctx;
    *(uint64_t *)arg += buf[0] + buf[n - 1] + n; /* ASan sees a read past the bytes */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof(path), "/tmp/fuzz_zip.%ld", (long)getpid());
        inflate_choose();
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct fs_reader *r;
    uint64_t file_size;
    if (fs_reader_open(&ctx, path, &r, &file_size))
        goto out;
    struct zip_directory d;
    if (zip_directory_read(&ctx, r, file_size, 1000, &d)) {
        struct zip_pipe *p = zip_pipe_new();
        atomic_bool stop = false;
        for (size_t i = 0; i < d.count; i++) {
            const struct zip_dir_entry *e = &d.entries[i];
            char *name = xstrndup(e->name, e->name_len);
            const struct zip_dir_entry *found = zip_directory_find(&d, name, e->size);
            uint64_t start, seen = 0;
            struct zip_taker t = {take, &seen};
            /* 64 MiB at most an entry: a bomb of a few bytes must not take the fuzzer's time */
            if (found && found->size < (64u << 20) &&
                zip_entry_data_start(&ctx, r, &d, found, path, &start) > 0)
                zip_pipe_entry(&ctx, p, r, path, name, found, start, &t, &stop);
            free(name);
        }
        zip_pipe_free(p);
        zip_directory_free(&d);
    }
    fs_reader_close(r);
out:
    error_state_free(&ctx.err);
    unlink(path); /* nothing left in /tmp after the run */
    return 0;
}
