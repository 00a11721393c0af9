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

const char *elf_read_imports(FILE *f, struct bin_imports *out)
{
    memset(out, 0, sizeof(*out));
    out->format = BIN_ELF;
    struct elf e = {.f = f};
    if (fs_seek(f, 0, SEEK_END) != 0 || (e.size = fs_tell(f)) < 0)
        return "cannot read the file";
    unsigned char h[64];
    if (!read_at(&e, 0, h, 52) || memcmp(h,
                                         "\x7f"
                                         "ELF",
                                         4))
        return "not an ELF file";
    if (h[4] != 1 && h[4] != 2)
        return "unknown ELF class";
    if (h[5] != 1 && h[5] != 2)
        return "unknown ELF byte order";
    e.is64 = h[4] == 2;
    e.big = h[5] == 2;
    if (e.is64 && !read_at(&e, 0, h, 64))
        return "truncated ELF header";
    out->bits = e.is64 ? 64 : 32;
    out->machine = (unsigned)get(&e, h + 18, 2);
    uint64_t phoff = e.is64 ? get(&e, h + 32, 8) : get(&e, h + 28, 4);
    unsigned phentsize = (unsigned)get(&e, h + (e.is64 ? 54 : 42), 2);
    unsigned phnum = (unsigned)get(&e, h + (e.is64 ? 56 : 44), 2);
    if (phentsize < (e.is64 ? 56u : 32u))
        return "bad program header size";

    struct segment *loads = xcalloc(phnum ? phnum : 1, sizeof(*loads));
    size_t nloads = 0;
    uint64_t dyn_off = 0, dyn_size = 0;
    bool have_dyn = false;
    const char *why = NULL;
    for (unsigned i = 0; i < phnum; i++) {
        unsigned char p[56];
        if (!read_at(&e, phoff + (uint64_t)i * phentsize, p, e.is64 ? 56 : 32)) {
            why = "truncated program headers";
            goto out;
        }
        uint32_t type = (uint32_t)get(&e, p, 4);
        struct segment s;
        if (e.is64) {
            s.offset = get(&e, p + 8, 8);
            s.vaddr = get(&e, p + 16, 8);
            s.filesz = get(&e, p + 32, 8);
        } else {
            s.offset = get(&e, p + 4, 4);
            s.vaddr = get(&e, p + 8, 4);
            s.filesz = get(&e, p + 16, 4);
        }
        if (type == PT_LOAD)
            loads[nloads++] = s;
        else if (type == PT_DYNAMIC) {
            dyn_off = s.offset;
            dyn_size = s.filesz;
            have_dyn = true;
        }
    }
    if (!have_dyn)
        goto out; /* a static executable: it imports nothing */
    if (dyn_size > ELF_MAX_TABLE) {
        why = "dynamic section too large";
        goto out;
    }
    unsigned char *dyn = xmalloc(dyn_size ? (size_t)dyn_size : 1);
    if (!read_at(&e, dyn_off, dyn, (size_t)dyn_size)) {
        free(dyn);
        why = "truncated dynamic section";
        goto out;
    }
    size_t entsize = e.is64 ? 16 : 8, nent = (size_t)dyn_size / entsize;
    uint64_t strtab = 0, strsz = 0;
    for (size_t i = 0; i < nent; i++) {
        uint64_t tag = get(&e, dyn + i * entsize, (int)entsize / 2);
        uint64_t val = get(&e, dyn + i * entsize + entsize / 2, (int)entsize / 2);
        if (tag == DT_NULL)
            break;
        if (tag == DT_STRTAB)
            strtab = val;
        else if (tag == DT_STRSZ)
            strsz = val;
    }
    uint64_t str_off;
    if (!strsz || strsz > ELF_MAX_TABLE || !vaddr_to_offset(loads, nloads, strtab, &str_off)) {
        free(dyn);
        why = "no readable string table";
        goto out;
    }
    char *strs = xmalloc((size_t)strsz);
    if (!read_at(&e, str_off, strs, (size_t)strsz)) {
        free(strs);
        free(dyn);
        why = "truncated string table";
        goto out;
    }
    out->needed = xcalloc(nent + 1, sizeof(char *));
    for (size_t i = 0; i < nent && !why; i++) {
        uint64_t tag = get(&e, dyn + i * entsize, (int)entsize / 2);
        uint64_t val = get(&e, dyn + i * entsize + entsize / 2, (int)entsize / 2);
        if (tag == DT_NULL)
            break;
        if (tag != DT_NEEDED && tag != DT_SONAME && tag != DT_RPATH && tag != DT_RUNPATH)
            continue;
        char *s = table_string(strs, strsz, val);
        if (!s)
            why = "a dynamic entry points outside the string table";
        else if (tag == DT_NEEDED)
            out->needed[out->count++] = s;
        else {
            char **slot = tag == DT_SONAME  ? &out->soname
                          : tag == DT_RPATH ? &out->rpath
                                            : &out->runpath;
            free(*slot);
            *slot = s;
        }
    }
    free(strs);
    free(dyn);
out:
    free(loads);
    if (!out->needed)
        out->needed = xcalloc(1, sizeof(char *));
    if (why)
        bin_imports_free(out);
    return why;
}
