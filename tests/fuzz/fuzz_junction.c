/* libFuzzer: an NTFS junction's reparse-point bytes (junction.c), as read back from disk. */
#include "platform/junction.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *target = NULL;
    junction_parse(data, size, &target);
    free(target);
    return 0;
}
