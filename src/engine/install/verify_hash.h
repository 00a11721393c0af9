/* The size and SHA-256 of many files at once, on several threads: cdm verify's reading,
 * and cdm sbom's (which asks for SHA-1 too). */
#ifndef CDM_VERIFY_HASH_H
#define CDM_VERIFY_HASH_H

#include "internal.h"

struct file_hash {
    char *path;                  /* the file to read (set by the caller) */
    unsigned long long expected; /* its recorded size (set by the caller): the largest first */
    bool want_sha1;              /* set by the caller: SHA-1 too, into sha1 */
    bool done;                   /* read to its end; false: the caller reads it again for why */
    unsigned long long size;     /* bytes read */
    char hex[65];                /* their SHA-256 */
    char sha1[41];               /* their SHA-1, when asked for */
};

/* Read each of the n files on up to threads threads (at least one, the caller's own), each
 * thread taking the next file not taken yet, the largest first (by expected): many files
 * at once, a large one on one thread (SHA-256 cannot be split), so that the largest, begun
 * first, bounds the time rather than a large file begun last. */
void hash_files(struct file_hash *files, size_t n, unsigned threads);

#endif
