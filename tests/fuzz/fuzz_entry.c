/* libFuzzer: the per-entry checks of an archive (entry_check.c) on a sequence of entries,
 * one a line: a kind digit (enum entry_kind), the name, a tab, a link's target. */
#include "engine/entry_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct entry_checker c = {.max_entries = 1000};
    struct entry_verdict v;
    char *save = text;
    for (char *line = text; line; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        if (!*line)
            continue;
        enum entry_kind kind = (enum entry_kind)((unsigned char)line[0] % (ENTRY_UNKNOWN + 1));
        char *tab = strchr(line + 1, '\t');
        if (tab)
            *tab = '\0';
        entry_check(&c, line + 1, kind, tab ? tab + 1 : NULL, &v);
        if (v.why || v.too_many)
            break;
    }
    entry_links_check(&c, &v);
    entry_checker_free(&c);
    free(text);
    return 0;
}
