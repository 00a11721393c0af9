/* The line-per-entry input of the entry fuzzers: each non-empty line of data, split at its
 * first tab after the first character (tab NULL when none), until fn returns false. */
#ifndef CDM_FUZZ_LINES_H
#define CDM_FUZZ_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fuzz_lines(const uint8_t *data, size_t size,
                       bool (*fn)(void *arg, char *line, const char *tab), void *arg)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char *save = text;
    for (char *line = text; line; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        if (!*line)
            continue;
        char *tab = strchr(line + 1, '\t');
        if (tab)
            *tab++ = '\0';
        if (!fn(arg, line, tab))
            break;
    }
    free(text);
}

#endif
