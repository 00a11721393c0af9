/*
 * A zip's central directory read by cdm itself, for one purpose: where each entry's
 * compressed bytes lie, so that the workers of zip_extract.c inflate them with the fastest
 * inflater (inflate.h) instead of libarchive's. libarchive still reads the directory for
 * everything else (the names and kinds every entry check judges): an entry found here
 * under the same unique name, with the same size, of a method the inflater reads, is
 * inflated here; any other, or a zip this reader does not understand (a prefix before the
 * zip, several disks), goes through libarchive as before.
 */
#ifndef CDM_ZIP_DIRECTORY_H
#define CDM_ZIP_DIRECTORY_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

struct zip_in;

struct zip_dir_entry {
    const char *name; /* the name's bytes as stored (not NUL-terminated) */
    size_t name_len;
    uint16_t flags, method;
    uint32_t crc32;
    uint64_t compressed, size, local_header;
    uint64_t data_start; /* where its compressed bytes start (zip_directory_check_locals); 0
                          * when this reader leaves it to libarchive */
};

struct zip_directory {
    unsigned char *raw; /* the directory's bytes, which the names point into */
    struct zip_dir_entry *entries;
    size_t count;
    struct zip_dir_entry **by_name; /* entries sorted by name */
    uint64_t archive_size, directory_start;
};

/* Read the directory of the zip open in r (size bytes long), of at most max_entries
 * entries. false when this reader cannot use it (then d is empty and libarchive reads
 * every entry); an error reading the file is reported in ctx and also gives false. */
bool zip_directory_read(cdm_ctx *ctx, struct zip_in *r, uint64_t size, size_t max_entries,
                        struct zip_directory *d);
/* Every entry's local header read once, against the directory (zip_entry_data_start):
 * e->data_start set where its bytes are readable here. -1, the error in ctx, when one
 * disagrees with the directory (the zip is refused); else 0. */
int zip_directory_check_locals(cdm_ctx *ctx, struct zip_in *r, struct zip_directory *d,
                               const char *path);
/* The entry of this name when exactly one has it, its data readable here (method stored or
 * deflated, not encrypted, its local header checked) and of size bytes; else NULL. */
const struct zip_dir_entry *zip_directory_find(const struct zip_directory *d, const char *name,
                                               uint64_t size);
/* Where e's compressed bytes start, from its local header: 1. 0 when the header is not
 * there or its bytes would pass the directory's start (libarchive reads the entry then).
 * Negative, the error set in ctx, when the local header disagrees with the directory in
 * name, method, encryption, CRC-32 or sizes: a damaged zip, or one made so that two readers
 * read two archives out of it, is refused (path names it). */
int zip_entry_data_start(cdm_ctx *ctx, struct zip_in *r, const struct zip_directory *d,
                         const struct zip_dir_entry *e, const char *path, uint64_t *start);
void zip_directory_free(struct zip_directory *d);

#endif
