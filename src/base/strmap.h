/*
 * A map from strings to numbers, by open addressing: the lookups an archive's checks make
 * for every entry cost the same with 90 entries or 90,000 (issue: a list scanned per entry
 * made large archives quadratic while the store lock was held).
 */
#ifndef CDM_STRMAP_H
#define CDM_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap_slot;
struct strmap {
    struct strmap_slot *slots;
    size_t cap;   /* a power of two, or 0 */
    size_t count; /* keys stored */
};
#define STRMAP_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* The value stored for the n bytes at key (which need not be NUL-terminated); NULL when
 * the key is not there. The pointer is valid until the next strmap_put. */
size_t *strmap_get(const struct strmap *m, const char *key, size_t n);
/* Store value for key unless the key is there already; either way return the key's value
 * (valid until the next put), and say in *added whether this call stored it. */
size_t *strmap_put(struct strmap *m, const char *key, size_t n, size_t value, bool *added);
void strmap_free(struct strmap *m);

#endif
