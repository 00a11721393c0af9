/* A map from strings to numbers (see strmap.h): FNV-1a, linear probing, at most half full. */
#include "strmap.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct strmap_slot {
    char *key; /* NULL: empty */
    size_t len;
    uint64_t hash;
    size_t value;
};

static uint64_t hash_bytes(const char *key, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
    return h;
}

/* The slot holding key, or the empty one where it would go. */
static struct strmap_slot *find(const struct strmap *m, const char *key, size_t n, uint64_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct strmap_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->len == n && !memcmp(s->key, key, n)))
            return s;
    }
}

static void grow(struct strmap *m)
{
    struct strmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->slots = xcalloc(m->cap, sizeof(*m->slots));
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            *find(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
    free(old.slots);
}

size_t *strmap_get(const struct strmap *m, const char *key, size_t n)
{
    if (!m->cap)
        return NULL;
    struct strmap_slot *s = find(m, key, n, hash_bytes(key, n));
    return s->key ? &s->value : NULL;
}

size_t *strmap_put(struct strmap *m, const char *key, size_t n, size_t value, bool *added)
{
    if ((m->count + 1) * 2 > m->cap)
        grow(m);
    uint64_t h = hash_bytes(key, n);
    struct strmap_slot *s = find(m, key, n, h);
    *added = !s->key;
    if (*added) {
        s->key = xstrndup(key, n);
        s->len = n;
        s->hash = h;
        s->value = value;
        m->count++;
    }
    return &s->value;
}

void strmap_free(struct strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    *m = (struct strmap)STRMAP_INIT;
}
