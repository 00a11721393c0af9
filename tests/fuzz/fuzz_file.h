/* The input of the fuzzers of package readers, which read a file: written to a file of this
 * process's own (/tmp/fuzz_NAME.PID), its path returned; NULL when it cannot be written. */
#ifndef CDM_FUZZ_FILE_H
#define CDM_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof(path), "/tmp/fuzz_%s.%ld", name, (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    fwrite(data, 1, size, f);
    fclose(f);
    return path;
}

#endif
