/* libFuzzer: the checks on another store's rows (install --from-store reads them from that
 * store's index, entry_check_row), one row a line: 'f' (a file), 'l' (a link) or anything
 * else (a folder), the path, a tab, a link's target. */
#include "engine/extract/entry_check.h"
#include "fuzz_lines.h"

static bool row(void *arg, char *line, const char *target)
{
    struct entry_checker *c = arg;
    struct entry_verdict v;
    entry_check_row(c, line + 1, line[0] == 'f', line[0] == 'l' ? (target ? target : "") : NULL,
                    &v);
    return !v.why && !v.too_many;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct entry_checker c = {.max_entries = 1000};
    struct entry_verdict v;
    fuzz_lines(data, size, row, &c);
    entry_links_check(&c, &v);
    entry_checker_free(&c);
    return 0;
}
