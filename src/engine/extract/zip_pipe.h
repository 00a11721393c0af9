/*
 * One zip entry's bytes, from their place in the archive to whoever takes them (hashes and
 * writes them): read and inflated on the calling thread; for a large entry, taken on a
 * second thread meanwhile, so that the entry costs the time of the slower of the two
 * rather than their sum (inflating the largest file bounds a zip's install on many cores).
 */
#ifndef CDM_ZIP_PIPE_H
#define CDM_ZIP_PIPE_H

#include "zip_directory.h"

#include <stdatomic.h>

struct zip_in;

/* Takes the entry's bytes in order; runs on the pipe's thread for a large entry. Its
 * errors go into ctx, which is its own (not the caller's). */
struct zip_taker {
    int (*take)(void *arg, cdm_ctx *ctx, const unsigned char *buf, size_t n);
    void *arg;
};

struct zip_pipe;
struct zip_pipe *zip_pipe_new(void);
void zip_pipe_free(struct zip_pipe *p);
/* Inflate entry e of the archive at path (name: the entry's name, for messages), whose
 * compressed bytes start at start in r, into taker; its size and CRC-32 checked against
 * the directory's. Gives up (CDM_EIO, no message) once *stop is set. */
int zip_pipe_entry(cdm_ctx *ctx, struct zip_pipe *p, struct zip_in *r, const char *path,
                   const char *name, const struct zip_dir_entry *e, uint64_t start,
                   const struct zip_taker *taker, atomic_bool *stop);

#endif
