/*
 * The zip format's end record, its zip64 form, the central directory's entries and the
 * local headers (APPNOTE.TXT 4.3), read with every length checked against the bytes there
 * are. Whatever this reader does not expect makes it step aside (false, or no entry found)
 * rather than refuse: libarchive then reads the zip as it always did, and its verdict
 * stands.
 */
#include "zip_directory.h"
#include "inflate.h"
#include "zip_in.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#define END_SIZE          22 /* the end of central directory record, without its comment */
#define END_SEARCH        (END_SIZE + 0xffff)
#define ZIP64_LOCATOR     20
#define ZIP64_END_SIZE    56
#define ENTRY_SIZE        46
#define LOCAL_SIZE        30
#define DIRECTORY_MAX     (64u << 20) /* larger ones go through libarchive */
#define SIG_END           0x06054b50u
#define SIG_ZIP64_END     0x06064b50u
#define SIG_ZIP64_LOCATOR 0x07064b50u
#define SIG_ENTRY         0x02014b50u
#define SIG_LOCAL         0x04034b50u
#define FLAG_ENCRYPTED    0x0001u
#define FLAG_STRONG       0x0040u

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)load_le(p, 2);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)load_le(p, 4);
}

/* n bytes at offset into buf: false on a short read (an error is in ctx if the read failed). */
static bool read_at(cdm_ctx *ctx, struct zip_in *r, uint64_t offset, void *buf, size_t n)
{
    if (zip_in_seek(ctx, r, (long long)offset, SEEK_SET) < 0)
        return false;
    size_t got = 0;
    while (got < n) {
        long long k = zip_in_read(ctx, r, (char *)buf + got, n - got);
        if (k <= 0)
            return false;
        got += (size_t)k;
    }
    return true;
}

struct directory_place {
    uint64_t start, size, count, end; /* end: where the directory must stop */
};

/* The zip64 end record, which a locator just before the end record points to: ZIP64_NONE
 * when there is no locator, ZIP64_READ when place now holds its values, ZIP64_BAD. */
enum zip64_end { ZIP64_NONE, ZIP64_READ, ZIP64_BAD };

static enum zip64_end read_zip64_end(cdm_ctx *ctx, struct zip_in *r, uint64_t end_at,
                                     struct directory_place *place)
{
    unsigned char loc[ZIP64_LOCATOR], rec[ZIP64_END_SIZE];
    if (end_at < ZIP64_LOCATOR || !read_at(ctx, r, end_at - ZIP64_LOCATOR, loc, sizeof(loc)) ||
        le32(loc) != SIG_ZIP64_LOCATOR)
        return ZIP64_NONE;
    uint64_t at = load_le(loc + 8, 8);
    if (le32(loc + 4) != 0 || le32(loc + 16) > 1 || at > end_at - ZIP64_LOCATOR ||
        end_at - ZIP64_LOCATOR - at < ZIP64_END_SIZE || !read_at(ctx, r, at, rec, sizeof(rec)) ||
        le32(rec) != SIG_ZIP64_END || le32(rec + 16) != 0 || le32(rec + 20) != 0 ||
        load_le(rec + 24, 8) != load_le(rec + 32, 8))
        return ZIP64_BAD;
    place->count = load_le(rec + 32, 8);
    place->size = load_le(rec + 40, 8);
    place->start = load_le(rec + 48, 8);
    place->end = at;
    return ZIP64_READ;
}

/* Where the directory lies, from the end record (the last one that ends the file) and the
 * zip64 end record where there is one (its values count, even where the end record's are
 * not the 0xffff... that say "see there", as Python's zipfile writes them). */
static bool find_directory(cdm_ctx *ctx, struct zip_in *r, uint64_t size,
                           struct directory_place *place)
{
    if (size < END_SIZE)
        return false;
    size_t tail_n = size < END_SEARCH ? (size_t)size : END_SEARCH;
    unsigned char *tail = xmalloc(tail_n);
    bool found = false;
    if (read_at(ctx, r, size - tail_n, tail, tail_n)) {
        for (size_t i = tail_n - END_SIZE + 1; i-- > 0;) {
            const unsigned char *e = tail + i;
            if (le32(e) != SIG_END)
                continue;
            /* the last end record is libarchive's too: where its comment does not end the
             * file (another record inside a comment), this reader steps aside */
            if (i + END_SIZE + le16(e + 20) != tail_n)
                break;
            uint64_t end_at = size - tail_n + i;
            if (le16(e + 4) != 0 || le16(e + 6) != 0 || le16(e + 8) != le16(e + 10))
                break; /* several disks */
            place->count = le16(e + 10);
            place->size = le32(e + 12);
            place->start = le32(e + 16);
            place->end = end_at;
            bool saturated =
                place->count == 0xffff || place->size == 0xffffffffu || place->start == 0xffffffffu;
            enum zip64_end z = read_zip64_end(ctx, r, end_at, place);
            found = z == ZIP64_READ || (z == ZIP64_NONE && !saturated);
            break;
        }
    }
    free(tail);
    /* the directory ends where the end records start: nothing before the zip, no gap */
    return found && place->start <= place->end && place->end - place->start == place->size;
}

/* The zip64 extra field's values, for the fields whose 32-bit value says "see there". */
static bool read_zip64_extra(const unsigned char *x, size_t n, struct zip_dir_entry *e,
                             bool need_size, bool need_compressed, bool need_offset)
{
    while (n >= 4) {
        uint16_t id = le16(x), len = le16(x + 2);
        if ((size_t)len > n - 4)
            return false;
        if (id == 0x0001) {
            const unsigned char *v = x + 4;
            size_t left = len;
            uint64_t *want[3] = {need_size ? &e->size : NULL,
                                 need_compressed ? &e->compressed : NULL,
                                 need_offset ? &e->local_header : NULL};
            for (size_t k = 0; k < 3; k++) {
                if (!want[k])
                    continue;
                if (left < 8)
                    return false;
                *want[k] = load_le(v, 8);
                v += 8;
                left -= 8;
            }
            return true;
        }
        x += 4 + len;
        n -= 4 + (size_t)len;
    }
    return !need_size && !need_compressed && !need_offset;
}

static bool parse_entries(struct zip_directory *d, size_t count, uint64_t bytes)
{
    const unsigned char *p = d->raw, *end = d->raw + bytes;
    d->entries = xcalloc(count ? count : 1, sizeof(*d->entries));
    for (size_t i = 0; i < count; i++) {
        if ((size_t)(end - p) < ENTRY_SIZE || le32(p) != SIG_ENTRY)
            return false;
        struct zip_dir_entry *e = &d->entries[i];
        size_t name_n = le16(p + 28), extra_n = le16(p + 30), comment_n = le16(p + 32);
        if ((size_t)(end - p) - ENTRY_SIZE < name_n + extra_n + comment_n || le16(p + 34) != 0)
            return false;
        e->flags = le16(p + 8);
        e->method = le16(p + 10);
        e->crc32 = le32(p + 16);
        e->compressed = le32(p + 20);
        e->size = le32(p + 24);
        e->local_header = le32(p + 42);
        e->name = (const char *)p + ENTRY_SIZE;
        e->name_len = name_n;
        if (!read_zip64_extra(p + ENTRY_SIZE + name_n, extra_n, e, e->size == 0xffffffffu,
                              e->compressed == 0xffffffffu, e->local_header == 0xffffffffu))
            return false;
        p += ENTRY_SIZE + name_n + extra_n + comment_n;
    }
    d->count = count;
    return true;
}

static int by_name(const void *a, const void *b)
{
    const struct zip_dir_entry *x = *(struct zip_dir_entry *const *)a;
    const struct zip_dir_entry *y = *(struct zip_dir_entry *const *)b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

bool zip_directory_read(cdm_ctx *ctx, struct zip_in *r, uint64_t size, size_t max_entries,
                        struct zip_directory *d)
{
    memset(d, 0, sizeof(*d));
    struct directory_place place;
    if (!find_directory(ctx, r, size, &place) || place.size > DIRECTORY_MAX ||
        place.count > max_entries || place.count > place.size / ENTRY_SIZE)
        return false;
    d->raw = xmalloc(place.size ? (size_t)place.size : 1);
    if (!read_at(ctx, r, place.start, d->raw, (size_t)place.size) ||
        !parse_entries(d, (size_t)place.count, place.size)) {
        zip_directory_free(d);
        return false;
    }
    d->archive_size = size;
    d->directory_start = place.start;
    d->by_name = xmalloc((d->count ? d->count : 1) * sizeof(*d->by_name));
    for (size_t i = 0; i < d->count; i++)
        d->by_name[i] = &d->entries[i];
    qsort(d->by_name, d->count, sizeof(*d->by_name), by_name);
    return true;
}

const struct zip_dir_entry *zip_directory_find(const struct zip_directory *d, const char *name,
                                               uint64_t size)
{
    struct zip_dir_entry key = {.name = name, .name_len = strlen(name)};
    const struct zip_dir_entry *k = &key;
    struct zip_dir_entry **hit =
        d->count ? bsearch(&k, d->by_name, d->count, sizeof(*d->by_name), by_name) : NULL;
    if (!hit)
        return NULL;
    size_t at = (size_t)(hit - d->by_name);
    if ((at > 0 && !by_name(&d->by_name[at - 1], hit)) ||
        (at + 1 < d->count && !by_name(&d->by_name[at + 1], hit)))
        return NULL; /* a name given twice: which one libarchive took is its business */
    const struct zip_dir_entry *e = *hit;
    if (!e->data_start || (e->method != ZIP_STORED && e->method != ZIP_DEFLATED) ||
        (e->flags & (FLAG_ENCRYPTED | FLAG_STRONG)) || e->size != size ||
        (e->method == ZIP_STORED && e->compressed != size))
        return NULL;
    return e;
}

/* Where the local header h (with its name, read after it) disagrees with the directory's
 * record e, in words; NULL when it agrees. Sizes and CRC-32 are compared only where the
 * local header holds them (no data descriptor, no zip64 "see there"). */
static const char *local_disagrees(const unsigned char *h, const char *name,
                                   const struct zip_dir_entry *e)
{
    uint16_t flags = le16(h + 6);
    uint32_t compressed = le32(h + 18), size = le32(h + 22);
    if (le16(h + 26) != e->name_len || memcmp(name, e->name, e->name_len))
        return "another name";
    if (le16(h + 8) != e->method)
        return "another compression method";
    if ((flags ^ e->flags) & (FLAG_ENCRYPTED | FLAG_STRONG))
        return "another encryption flag";
    if (flags & 0x0008u) /* sizes and CRC-32 follow the data */
        return NULL;
    if (le32(h + 14) != e->crc32)
        return "another CRC-32";
    if ((compressed != 0xffffffffu && compressed != e->compressed) ||
        (size != 0xffffffffu && size != e->size))
        return "another size";
    return NULL;
}

int zip_entry_data_start(cdm_ctx *ctx, struct zip_in *r, const struct zip_directory *d,
                         const struct zip_dir_entry *e, const char *path, uint64_t *start)
{
    unsigned char h[LOCAL_SIZE];
    if (e->local_header > d->directory_start ||
        d->directory_start - e->local_header < LOCAL_SIZE + e->name_len ||
        !read_at(ctx, r, e->local_header, h, sizeof(h)) || le32(h) != SIG_LOCAL)
        return 0;
    uint64_t at = e->local_header + LOCAL_SIZE + le16(h + 26) + le16(h + 28);
    if (at > d->directory_start || d->directory_start - at < e->compressed)
        return 0;
    char *name = xmalloc(e->name_len ? e->name_len : 1);
    const char *why = read_at(ctx, r, e->local_header + LOCAL_SIZE, name, e->name_len)
                          ? local_disagrees(h, name, e)
                          : "a local header cut short";
    free(name);
    if (why) {
        cdm_error_set(ctx, CDM_EARCHIVE,
                      "cannot read archive '%s' at entry '%.*s': it is damaged or "
                      "incomplete; download it again (its local header gives %s than "
                      "the zip's directory: the two must agree)",
                      path, (int)e->name_len, e->name, why);
        return -1;
    }
    *start = at;
    return 1;
}

int zip_directory_check_locals(cdm_ctx *ctx, struct zip_in *r, struct zip_directory *d,
                               const char *path)
{
    for (size_t i = 0; i < d->count; i++) {
        struct zip_dir_entry *e = &d->entries[i];
        uint64_t start = 0;
        int found = zip_entry_data_start(ctx, r, d, e, path, &start);
        if (found < 0)
            return -1;
        e->data_start = found ? start : 0; /* never 0 where found: a local header precedes */
    }
    return 0;
}

void zip_directory_free(struct zip_directory *d)
{
    free(d->raw);
    free(d->entries);
    free(d->by_name);
    memset(d, 0, sizeof(*d));
}
