/*
 * The glibc loader cache, as ldconfig writes it (glibc elf/cache.c, sysdeps/generic/
 * dl-cache.h): an optional old-format part, then "glibc-ld.so.cache" "1.1", a count, the
 * entries (flags, key, value, osversion, hwcap: 24 bytes) and a string table; key and
 * value are offsets from the start of the new-format header.
 */
#include "binfmt.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OLD_MAGIC  "ld.so-1.7.0"
#define NEW_MAGIC  "glibc-ld.so.cache1.1"
#define NEW_HEADER 48
#define NEW_ENTRY  24

static uint32_t u32(const unsigned char *p)
{
    /* the cache is written in the host's byte order; every glibc host we run on is
     * little-endian, and a big-endian cache simply fails the magic/bounds checks */
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static char *string_at(const unsigned char *base, size_t avail, uint32_t at)
{
    if (at >= avail)
        return NULL;
    size_t n = strnlen((const char *)base + at, avail - at);
    return n < avail - at ? xstrndup((const char *)base + at, n) : NULL;
}

bool ldcache_parse(const unsigned char *buf, size_t n, struct ldcache *out)
{
    memset(out, 0, sizeof(*out));
    size_t start = 0;
    if (n >= 16 && !memcmp(buf, OLD_MAGIC, sizeof(OLD_MAGIC) - 1)) {
        uint32_t nold = u32(buf + 12);
        if (nold > n / 12)
            return false;
        start = (16 + (size_t)nold * 12 + 7) & ~(size_t)7;
    }
    if (start > n || n - start < NEW_HEADER ||
        memcmp(buf + start, NEW_MAGIC, sizeof(NEW_MAGIC) - 1))
        return false;
    const unsigned char *h = buf + start;
    size_t avail = n - start;
    uint32_t nlibs = u32(h + 20);
    if (nlibs > (avail - NEW_HEADER) / NEW_ENTRY)
        return false;
    out->entries = xcalloc(nlibs ? nlibs : 1, sizeof(*out->entries));
    for (uint32_t i = 0; i < nlibs; i++) {
        const unsigned char *e = h + NEW_HEADER + (size_t)i * NEW_ENTRY;
        char *name = string_at(h, avail, u32(e + 4));
        char *path = string_at(h, avail, u32(e + 8));
        if (!name || !path) {
            free(name);
            free(path);
            ldcache_free(out);
            return false;
        }
        struct ldcache_entry *le = &out->entries[out->count++];
        le->flags = u32(e);
        le->name = name;
        le->path = path;
    }
    return true;
}

void ldcache_free(struct ldcache *c)
{
    for (size_t i = 0; i < c->count; i++) {
        free(c->entries[i].name);
        free(c->entries[i].path);
    }
    free(c->entries);
    memset(c, 0, sizeof(*c));
}
