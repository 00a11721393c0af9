/*
 * PE import table reading: the DLL names a Windows DLL imports (IMAGE_DIRECTORY_ENTRY_IMPORT).
 * Delay-loaded DLLs are left out: the loader does not need them to load the DLL.
 */
#include "binfmt.h"
#include "fs.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PE_MAX_IMPORTS 4096

struct pe {
    FILE *f;
    long long size;
    unsigned char *sections; /* the section table, 40 bytes each */
    unsigned nsections;
};

static bool read_at(const struct pe *pe, uint64_t off, void *buf, size_t n)
{
    if (off > (uint64_t)pe->size || n > (uint64_t)pe->size - off)
        return false;
    return fs_seek(pe->f, (long long)off, SEEK_SET) == 0 && fread(buf, 1, n, pe->f) == n;
}

static bool rva_to_offset(const struct pe *pe, uint32_t rva, uint64_t *off)
{
    for (unsigned i = 0; i < pe->nsections; i++) {
        const unsigned char *s = pe->sections + 40 * i;
        uint32_t vsize = (uint32_t)load_le(s + 8, 4), va = (uint32_t)load_le(s + 12, 4),
                 rawsize = (uint32_t)load_le(s + 16, 4), raw = (uint32_t)load_le(s + 20, 4);
        uint32_t span = vsize > rawsize ? vsize : rawsize;
        if (rva >= va && rva - va < span) {
            if (rva - va >= rawsize)
                return false; /* in memory only: not in the file */
            *off = (uint64_t)raw + (rva - va);
            return true;
        }
    }
    return false;
}

/* A NUL-terminated name at an RVA, at most 255 bytes as Windows file names are. */
static char *name_at(const struct pe *pe, uint32_t rva)
{
    uint64_t off;
    if (!rva_to_offset(pe, rva, &off))
        return NULL;
    char buf[257];
    size_t n = 0;
    if (fs_seek(pe->f, (long long)off, SEEK_SET) != 0)
        return NULL;
    int c;
    while (n < sizeof(buf) - 1 && (c = fgetc(pe->f)) != EOF && c != 0)
        buf[n++] = (char)c;
    if (n == 0 || n == sizeof(buf) - 1)
        return NULL;
    return xstrndup(buf, n);
}

/* The headers of the PE file f: its size, the section table (pe->sections, malloc'd), the
 * machine and bits, and the RVA of data directory dir (0 when it has none). NULL on
 * success, else why the file cannot be read. */
static const char *read_headers(struct pe *pe, unsigned dir, unsigned *machine, int *bits,
                                uint32_t *dir_rva)
{
    *dir_rva = 0;
    if (fs_seek(pe->f, 0, SEEK_END) != 0 || (pe->size = fs_tell(pe->f)) < 0)
        return "cannot read the file";
    unsigned char dos[64], coff[24];
    if (!read_at(pe, 0, dos, 64) || dos[0] != 'M' || dos[1] != 'Z')
        return "not a PE file";
    uint32_t nt = (uint32_t)load_le(dos + 0x3c, 4);
    if (!read_at(pe, nt, coff, 24) || memcmp(coff, "PE\0\0", 4))
        return "no PE signature";
    *machine = (uint32_t)load_le(coff + 4, 2);
    pe->nsections = (uint32_t)load_le(coff + 6, 2);
    uint32_t opt_size = (uint32_t)load_le(coff + 20, 2);
    unsigned char opt[240] = {0};
    if (opt_size < 2 || !read_at(pe, nt + 24, opt, opt_size < sizeof(opt) ? opt_size : sizeof(opt)))
        return "truncated optional header";
    uint32_t magic = (uint32_t)load_le(opt, 2);
    if (magic != 0x10b && magic != 0x20b)
        return "unknown optional header";
    *bits = magic == 0x20b ? 64 : 32;
    unsigned dirs_at = magic == 0x20b ? 112 : 96;
    uint32_t ndirs = (uint32_t)load_le(opt + dirs_at - 4, 4);
    if (ndirs <= dir || dirs_at + 8 * dir + 8 > opt_size)
        return NULL; /* no such directory */
    *dir_rva = (uint32_t)load_le(opt + dirs_at + 8 * dir, 4);
    if (!*dir_rva)
        return NULL;
    pe->sections = xmalloc(40 * (size_t)(pe->nsections ? pe->nsections : 1));
    if (!read_at(pe, (uint64_t)nt + 24 + opt_size, pe->sections, 40 * (size_t)pe->nsections))
        return "truncated section table";
    return NULL;
}

const char *pe_read_imports(FILE *f, struct bin_imports *out)
{
    memset(out, 0, sizeof(*out));
    out->format = BIN_PE;
    struct pe pe = {.f = f};
    uint32_t import_rva;
    const char *why = read_headers(&pe, 1, &out->machine, &out->bits, &import_rva);
    if (why) {
        free(pe.sections);
        return why;
    }
    out->needed = xcalloc(PE_MAX_IMPORTS + 1, sizeof(char *));
    if (!import_rva)
        return NULL; /* no import directory: imports nothing */
    uint64_t desc;
    if (!rva_to_offset(&pe, import_rva, &desc)) {
        why = "the import table is outside the file";
        goto out;
    }
    for (;; desc += 20) {
        unsigned char d[20];
        if (!read_at(&pe, desc, d, 20)) {
            why = "truncated import table";
            break;
        }
        static const unsigned char zero[20];
        if (!memcmp(d, zero, 20))
            break;
        if (out->count == PE_MAX_IMPORTS) {
            why = "too many imports";
            break;
        }
        char *name = name_at(&pe, (uint32_t)load_le(d + 12, 4));
        if (!name) {
            why = "an import names no readable DLL";
            break;
        }
        out->needed[out->count++] = name;
    }
out:
    free(pe.sections);
    if (why)
        bin_imports_free(out);
    return why;
}

/* The entry of the resource directory at offset dir (from the section's start res) whose id
 * is id, or the first one when id is 0: its offset, with the high bit for a subdirectory. */
static bool resource_entry(const struct pe *pe, uint64_t res, uint32_t dir, uint32_t id,
                           uint32_t *to)
{
    unsigned char head[16];
    if (!read_at(pe, res + dir, head, 16))
        return false;
    uint32_t n = (uint32_t)load_le(head + 12, 2) + (uint32_t)load_le(head + 14, 2);
    for (uint32_t i = 0; i < n && i < 4096; i++) {
        unsigned char e[8];
        if (!read_at(pe, res + dir + 16 + 8 * (uint64_t)i, e, 8))
            return false;
        if (!id || (uint32_t)load_le(e, 4) == id) {
            *to = (uint32_t)load_le(e + 4, 4);
            return true;
        }
    }
    return false;
}

const char *pe_read_file_version(FILE *f, char *out, size_t size)
{
    out[0] = '\0';
    struct pe pe = {.f = f};
    unsigned machine;
    int bits;
    uint32_t res_rva, at = 0;
    uint64_t res, data_off;
    const char *why = read_headers(&pe, 2, &machine, &bits, &res_rva);
    /* type RT_VERSION (16), then its first name, then its first language: a data entry */
    if (!why && (!res_rva || !rva_to_offset(&pe, res_rva, &res)))
        why = "no resources";
    if (!why && (!resource_entry(&pe, res, 0, 16, &at) || !(at & 0x80000000u) ||
                 !resource_entry(&pe, res, at & 0x7fffffffu, 0, &at) || !(at & 0x80000000u) ||
                 !resource_entry(&pe, res, at & 0x7fffffffu, 0, &at) || (at & 0x80000000u)))
        why = "no version resource";
    unsigned char entry[8], info[160];
    if (!why && (!read_at(&pe, res + at, entry, 8) ||
                 !rva_to_offset(&pe, (uint32_t)load_le(entry, 4), &data_off) ||
                 !read_at(&pe, data_off, info, sizeof(info))))
        why = "a truncated version resource";
    /* VS_VERSIONINFO: its key, then VS_FIXEDFILEINFO, which starts with 0xFEEF04BD */
    static const unsigned char sig[4] = {0xbd, 0x04, 0xef, 0xfe};
    for (size_t i = 0; !why && i + 16 <= sizeof(info); i += 4) {
        if (memcmp(info + i, sig, 4))
            continue;
        uint32_t ms = (uint32_t)load_le(info + i + 8, 4), ls = (uint32_t)load_le(info + i + 12, 4);
        snprintf(out, size, "%u.%u.%u.%u", ms >> 16, ms & 0xffffu, ls >> 16, ls & 0xffffu);
        break;
    }
    if (!why && !out[0])
        why = "no fixed file information in the version resource";
    free(pe.sections);
    return why;
}

bool pe_file_version_at(const char *path, char *out, size_t size)
{
    FILE *f = fs_fopen_read(path);
    const char *why = f ? pe_read_file_version(f, out, size) : "cannot open it";
    if (f)
        fclose(f);
    if (why)
        out[0] = '\0';
    return !why;
}
