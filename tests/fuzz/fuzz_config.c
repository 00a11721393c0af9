/* libFuzzer: the config reader (config.c, through inih), given the bytes as the config file
 * of a context. */
#include "cdm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof(path), "/tmp/cdm-fuzz-config.%ld.ini", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct cdm_options options = {.root = "/nonexistent/cdm-fuzz-store", .config_path = path};
    cdm_ctx *ctx = NULL;
    cdm_ctx_new(&ctx, &options);
    cdm_ctx_free(ctx);
    remove(path); /* one file an input, none left behind when the fuzzer ends */
    return 0;
}
