/*
 * An xz stream decoded on several threads (liblzma's multi-threaded decoder), for the
 * .tar.xz archives whose stream holds several blocks (xz -T0, as mirrors and users repack
 * them): libarchive's own xz filter decodes on one thread whatever the stream. A stream of
 * one block decodes on one thread either way. xz_mt.c where liblzma has the decoder;
 * xz_mt_none.c elsewhere (the Windows build reads no .tar.xz), whose xz_mt_new says no.
 */
#ifndef CDM_XZ_MT_H
#define CDM_XZ_MT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The next compressed bytes: their count, 0 at the end of the input, negative on a read
 * error (the caller's own, already reported). *buf stays valid until the next call. */
typedef long long (*xz_input_fn)(void *arg, const unsigned char **buf);

struct xz_mt;
/* Whether this build has the decoder (xz_mt_new may still fail for want of memory). */
bool xz_mt_exists(void);
/* A decoder on up to threads threads, its memory for them bounded by memlimit bytes (past
 * it liblzma decodes on one thread); NULL where there is none. */
struct xz_mt *xz_mt_new(unsigned threads, uint64_t memlimit, xz_input_fn input, void *arg);
/* Up to size decoded bytes into out: their count; 0 at the stream's end; XZ_MT_INPUT when
 * the input failed; XZ_MT_DAMAGED when the stream is damaged or cut short (*why, a static
 * text, says how). */
enum { XZ_MT_INPUT = -1, XZ_MT_DAMAGED = -2 };
long long xz_mt_read(struct xz_mt *x, unsigned char *out, size_t size, const char **why);
void xz_mt_free(struct xz_mt *x);

#endif
