/* libFuzzer: reading the version from a cuDNN header (header.c, a small preprocessor). */
#include "engine/extract/header.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int major, minor, patch;
    cudnn_header_version((const char *)data, size, &major, &minor, &patch);
    return 0;
}
