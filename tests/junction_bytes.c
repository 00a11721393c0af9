/* Print, in hex, the junction buffer cdm would hand to FSCTL_SET_REPARSE_POINT for a
 * target (tests/cli/junction_ntfs.sh writes it into an NTFS image through ntfs-3g). */
#include "platform/junction.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: junction_bytes 'C:\\target'\n");
        return 2;
    }
    unsigned char *buf = NULL;
    size_t size = 0;
    const char *why = junction_build(argv[1], &buf, &size);
    if (why) {
        fprintf(stderr, "junction_bytes: '%s' %s\n", argv[1], why);
        return 1;
    }
    for (size_t i = 0; i < size; i++)
        printf("%02x", buf[i]);
    printf("\n");
    free(buf);
    return 0;
}
