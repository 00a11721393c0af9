/*
 * The writer side of an extraction: a thread that creates, writes, hashes and closes the
 * files the reader (archive.c, decoding the archive) hands it, in order, through a
 * bounded pool of blocks, and hashes the archive's own bytes as the reader passes them on.
 * The decoder is the slow part; everything else runs beside it, and memory stays at the
 * pool's size whatever the archive's.
 */
#ifndef CDM_EXTRACT_WRITER_H
#define CDM_EXTRACT_WRITER_H

#include "internal.h"

#include <stdint.h>

#define XW_BLOCK_SIZE (256 * 1024)

struct sha256;
struct extract_writer;

struct xw_block {
    unsigned char *data; /* XW_BLOCK_SIZE bytes */
    size_t len;
};

/* A file the writer closed: its size, hash and permission bits (fs_file_mode). */
struct xw_file {
    uint64_t size;
    char sha256[65];
    int mode;
};

/* Start the writer; archive_hash receives the bytes given by xw_archive_bytes. Without a
 * thread (the system refused one) each call below does its work before returning. */
struct extract_writer *xw_start(struct sha256 *archive_hash);

/* The reader's side. A free block, waiting for one; NULL once the writer has failed (the
 * reader stops, and xw_finish says why). */
struct xw_block *xw_take(struct extract_writer *w);
/* Bytes of the archive file, to hash; the reader keeps its own hold on b (the decoder
 * reads from it) until it gives it back with xw_give_back. */
void xw_archive_bytes(struct extract_writer *w, struct xw_block *b);
void xw_give_back(struct extract_writer *w, struct xw_block *b);
/* A new file at path (created as fs_file_create does), its data block by block, its end.
 * False once the writer has failed. */
bool xw_file_open(struct extract_writer *w, const char *path, bool executable);
void xw_file_data(struct extract_writer *w, struct xw_block *b);
bool xw_file_close(struct extract_writer *w);

/* Wait for the writer to finish what it was given. The files closed, in the order they
 * were opened (the caller frees *files); on the writer's failure, its error goes into ctx
 * and is returned. A file left open (the reader stopped) is closed as it is: the caller
 * deletes the folder. */
int xw_finish(struct extract_writer *w, cdm_ctx *ctx, struct xw_file **files, size_t *count);
void xw_free(struct extract_writer *w);

#endif
