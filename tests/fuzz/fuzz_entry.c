/* libFuzzer: the per-entry checks of an archive (entry_check.c) on a sequence of entries,
 * one a line: a kind digit (enum entry_kind), the name, a tab, a link's target. */
#include "engine/extract/entry_check.h"
#include "fuzz_lines.h"

static bool entry(void *arg, char *line, const char *target)
{
    struct entry_checker *c = arg;
    struct entry_verdict v;
    enum entry_kind kind = (enum entry_kind)((unsigned char)line[0] % (ENTRY_UNKNOWN + 1));
    entry_check(c, line + 1, kind, target, &v);
    return !v.why && !v.too_many;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct entry_checker c = {.max_entries = 1000};
    struct entry_verdict v;
    fuzz_lines(data, size, entry, &c);
    entry_links_check(&c, &v);
    entry_checker_free(&c);
    return 0;
}
