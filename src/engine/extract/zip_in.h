/*
 * A zip's bytes as its readers see them (the directory's, libarchive's, the workers'): the
 * file on disk, or one still arriving (cdm_archive.h, struct arriving), of which a read
 * gets the bytes already written, else those had ahead of the download (the directory and
 * the entries' headers, fetched by range), else waits for the download to bring them. A
 * zip is read out of order, so each reader says where it reads; what it gets is always the
 * file's bytes at that place, never a hole not yet written.
 */
#ifndef CDM_ZIP_IN_H
#define CDM_ZIP_IN_H

#include "cdm_archive.h"

struct zip_in;

/* Open path, arriving (NULL: whole on disk); *size gets the whole file's size. fetch: this
 * reader reads headers, which may be asked of the server ahead of the download (the
 * directory's walks); the workers, which read the entries' data, wait for it instead. */
int zip_in_open(cdm_ctx *ctx, const char *path, const struct arriving *arriving, bool fetch,
                struct zip_in **out, uint64_t *size);
/* As fs_reader_read and fs_reader_seek (whence 0, 1, 2 as SEEK_SET, SEEK_CUR, SEEK_END). */
long long zip_in_read(cdm_ctx *ctx, struct zip_in *in, void *buf, size_t n);
long long zip_in_seek(cdm_ctx *ctx, struct zip_in *in, long long offset, int whence);
void zip_in_close(struct zip_in *in);
/* The error for a file still arriving found shorter than the download said (another
 * program cut it), here or in a .tar.xz's read: CDM_EIO, naming path. */
int arriving_cut_short(cdm_ctx *ctx, const char *path);

#endif
