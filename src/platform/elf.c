/*
 * ELF dynamic section reading: DT_NEEDED, DT_SONAME, DT_RUNPATH, DT_RPATH. Both classes and
 * both byte orders, because a store may hold another machine's libraries. Every offset
 * read from the file is bounds-checked against the file's size before use.
 */
#include "binfmt.h"
#include "fs.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PT_LOAD = 1, PT_DYNAMIC = 2 };
enum {
    DT_NULL = 0,
    DT_NEEDED = 1,
    DT_STRTAB = 5,
    DT_STRSZ = 10,
    DT_SONAME = 14,
    DT_RPATH = 15,
    DT_RUNPATH = 29
};

/* Dynamic sections and string tables of real libraries are small; anything larger is
 * a corrupt file, not a reason to allocate gigabytes. */
#define ELF_MAX_TABLE (16u << 20)

struct elf {
    FILE *f;
    long long size;
    bool is64, big;
};

static uint64_t get(const struct elf *e, const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[e->big ? n - 1 - i : i] << (8 * i);
    return v;
}

static bool read_at(const struct elf *e, uint64_t off, void *buf, size_t n)
{
    if (off > (uint64_t)e->size || n > (uint64_t)e->size - off)
        return false;
    return fs_seek(e->f, (long long)off, SEEK_SET) == 0 && fread(buf, 1, n, e->f) == n;
}

struct segment {
    uint64_t offset, vaddr, filesz;
};

/* File offset of a virtual address, through the PT_LOAD segments. */
static bool vaddr_to_offset(const struct segment *loads, size_t n, uint64_t vaddr, uint64_t *off)
{
    for (size_t i = 0; i < n; i++)
        if (vaddr >= loads[i].vaddr && vaddr - loads[i].vaddr < loads[i].filesz) {
            *off = loads[i].offset + (vaddr - loads[i].vaddr);
            return true;
        }
    return false;
}

static char *table_string(const char *strtab, uint64_t size, uint64_t at)
{
    if (at >= size)
        return NULL;
    size_t n = strnlen(strtab + at, (size_t)(size - at));
    return at + n < size ? xstrndup(strtab + at, n) : NULL;
}

/* The ELF header: class, byte order, machine, where the program headers are. */
struct program_headers {
    uint64_t offset;
    unsigned entry_size, count;
};

static const char *read_header(struct elf *e, struct bin_imports *out, struct program_headers *ph)
{
    if (fs_seek(e->f, 0, SEEK_END) != 0 || (e->size = fs_tell(e->f)) < 0)
        return "cannot read the file";
    unsigned char h[64];
    if (!read_at(e, 0, h, 52) || memcmp(h,
                                        "\x7f"
                                        "ELF",
                                        4))
        return "not an ELF file";
    if (h[4] != 1 && h[4] != 2)
        return "unknown ELF class";
    if (h[5] != 1 && h[5] != 2)
        return "unknown ELF byte order";
    e->is64 = h[4] == 2;
    e->big = h[5] == 2;
    if (e->is64 && !read_at(e, 0, h, 64))
        return "truncated ELF header";
    out->bits = e->is64 ? 64 : 32;
    out->machine = (unsigned)get(e, h + 18, 2);
    ph->offset = e->is64 ? get(e, h + 32, 8) : get(e, h + 28, 4);
    ph->entry_size = (unsigned)get(e, h + (e->is64 ? 54 : 42), 2);
    ph->count = (unsigned)get(e, h + (e->is64 ? 56 : 44), 2);
    if (ph->entry_size < (e->is64 ? 56u : 32u))
        return "bad program header size";
    return NULL;
}

/* The segments: the PT_LOAD ones (to map addresses to offsets) and PT_DYNAMIC's. */
struct segments {
    struct segment *loads;
    size_t count;
    struct segment dynamic;
    bool have_dynamic;
};

static const char *read_segments(const struct elf *e, const struct program_headers *ph,
                                 struct segments *out)
{
    out->loads = xcalloc(ph->count ? ph->count : 1, sizeof(*out->loads));
    for (unsigned i = 0; i < ph->count; i++) {
        unsigned char p[56];
        if (!read_at(e, ph->offset + (uint64_t)i * ph->entry_size, p, e->is64 ? 56 : 32))
            return "truncated program headers";
        uint32_t type = (uint32_t)get(e, p, 4);
        struct segment s;
        if (e->is64) {
            s.offset = get(e, p + 8, 8);
            s.vaddr = get(e, p + 16, 8);
            s.filesz = get(e, p + 32, 8);
        } else {
            s.offset = get(e, p + 4, 4);
            s.vaddr = get(e, p + 8, 4);
            s.filesz = get(e, p + 16, 4);
        }
        if (type == PT_LOAD) {
            out->loads[out->count++] = s;
        } else if (type == PT_DYNAMIC) {
            out->dynamic = s;
            out->have_dynamic = true;
        }
    }
    return NULL;
}

/* The dynamic section's entries and the string table they point into. */
struct dynamic {
    unsigned char *entries;
    size_t entry_size, count;
    char *strings;
    uint64_t strings_size;
};

static void dynamic_entry(const struct elf *e, const struct dynamic *d, size_t i, uint64_t *tag,
                          uint64_t *val)
{
    *tag = get(e, d->entries + i * d->entry_size, (int)d->entry_size / 2);
    *val = get(e, d->entries + i * d->entry_size + d->entry_size / 2, (int)d->entry_size / 2);
}

static const char *read_dynamic(const struct elf *e, const struct segments *segs, struct dynamic *d)
{
    uint64_t size = segs->dynamic.filesz;
    if (size > ELF_MAX_TABLE)
        return "dynamic section too large";
    d->entries = xmalloc(size ? (size_t)size : 1);
    if (!read_at(e, segs->dynamic.offset, d->entries, (size_t)size))
        return "truncated dynamic section";
    d->entry_size = e->is64 ? 16 : 8;
    d->count = (size_t)size / d->entry_size;
    uint64_t strtab = 0, tag, val, offset;
    for (size_t i = 0; i < d->count; i++) {
        dynamic_entry(e, d, i, &tag, &val);
        if (tag == DT_NULL)
            break;
        if (tag == DT_STRTAB)
            strtab = val;
        else if (tag == DT_STRSZ)
            d->strings_size = val;
    }
    if (!d->strings_size || d->strings_size > ELF_MAX_TABLE ||
        !vaddr_to_offset(segs->loads, segs->count, strtab, &offset))
        return "no readable string table";
    d->strings = xmalloc((size_t)d->strings_size);
    if (!read_at(e, offset, d->strings, (size_t)d->strings_size))
        return "truncated string table";
    return NULL;
}

/* DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH, as strings of the table. */
static const char *take_names(const struct elf *e, const struct dynamic *d, struct bin_imports *out)
{
    out->needed = xcalloc(d->count + 1, sizeof(char *));
    uint64_t tag, val;
    for (size_t i = 0; i < d->count; i++) {
        dynamic_entry(e, d, i, &tag, &val);
        if (tag == DT_NULL)
            break;
        if (tag != DT_NEEDED && tag != DT_SONAME && tag != DT_RPATH && tag != DT_RUNPATH)
            continue;
        char *s = table_string(d->strings, d->strings_size, val);
        if (!s)
            return "a dynamic entry points outside the string table";
        if (tag == DT_NEEDED) {
            out->needed[out->count++] = s;
            continue;
        }
        char **slot = tag == DT_SONAME  ? &out->soname
                      : tag == DT_RPATH ? &out->rpath
                                        : &out->runpath;
        free(*slot);
        *slot = s;
    }
    return NULL;
}

const char *elf_read_imports(FILE *f, struct bin_imports *out)
{
    memset(out, 0, sizeof(*out));
    out->format = BIN_ELF;
    struct elf e = {.f = f};
    struct program_headers ph;
    struct segments segs = {0};
    struct dynamic dyn = {0};
    const char *why = read_header(&e, out, &ph);
    if (!why)
        why = read_segments(&e, &ph, &segs);
    /* without a dynamic segment: a static executable, which imports nothing */
    if (!why && segs.have_dynamic && !(why = read_dynamic(&e, &segs, &dyn)))
        why = take_names(&e, &dyn, out);
    free(dyn.strings);
    free(dyn.entries);
    free(segs.loads);
    if (!out->needed)
        out->needed = xcalloc(1, sizeof(char *));
    if (why)
        bin_imports_free(out);
    return why;
}
