/*
 * What a shared library imports, read from the file itself without loading it: ELF
 * DT_NEEDED, DT_RUNPATH and DT_RPATH (elf.c), the PE import table (pe.c), and the glibc
 * loader cache that resolves ELF names (ldcache.c). Pure portable C: the caller opens
 * the file (loader_read_imports does), so these parsers work on either platform's
 * libraries.
 */
#ifndef CDM_BINFMT_H
#define CDM_BINFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum bin_format { BIN_UNKNOWN, BIN_ELF, BIN_PE };

struct bin_imports {
    enum bin_format format;
    char **needed; /* NULL-terminated, in the file's order */
    size_t count;
    char *soname;     /* ELF DT_SONAME; NULL when absent (and for PE) */
    char *runpath;    /* ELF DT_RUNPATH, NULL when absent */
    char *rpath;      /* ELF DT_RPATH, NULL when absent */
    unsigned machine; /* ELF e_machine or PE Machine: a loader skips other machines' files */
    int bits;         /* 32 or 64 */
};

enum bin_format bin_detect(FILE *f);
/* Fill *out from f. NULL on success, else why the file cannot be read (a static string). */
const char *elf_read_imports(FILE *f, struct bin_imports *out);
const char *pe_read_imports(FILE *f, struct bin_imports *out);
/* The FileVersion of the PE file f's version resource (VS_FIXEDFILEINFO), "9.1.0.70", into
 * out. NULL on success, else why there is none (a static string). */
const char *pe_read_file_version(FILE *f, char *out, size_t size);
/* The same for the regular file at path (pe.c opens it): false, out "", where it has none. */
bool pe_file_version_at(const char *path, char *out, size_t size);
/* Either of the above, by the file's magic (search.c, above both readers). */
const char *bin_read_imports(FILE *f, struct bin_imports *out);
void bin_imports_free(struct bin_imports *im);

/* The glibc loader cache (/etc/ld.so.cache): library name -> path. */
struct ldcache_entry {
    char *name;
    char *path;
    unsigned flags; /* the cache's flags: type and required architecture */
};
struct ldcache {
    struct ldcache_entry *entries;
    size_t count;
};
/* Parse a cache file's bytes (the "glibc-ld.so.cache1.1" format, alone or after the old
 * "ld.so-1.7.0" one). False when the bytes are not such a cache. */
bool ldcache_parse(const unsigned char *buf, size_t n, struct ldcache *out);
void ldcache_free(struct ldcache *c);

#endif
