/*
 * A zip entry's bytes turned back into the file, a piece at a time: stored entries copied,
 * deflated ones inflated, with the CRC-32 the zip's directory records kept on the way.
 * Intel's ISA-L inflates about twice as fast as zlib (its igzip, Debian's libisal2): it is
 * loaded at run time where the system has it, as libcurl is, so that a start of cdm loads
 * nothing more; zlib (linked in through libarchive) does the work elsewhere.
 */
#ifndef CDM_INFLATE_H
#define CDM_INFLATE_H

#include <stddef.h>
#include <stdint.h>

enum { ZIP_STORED = 0, ZIP_DEFLATED = 8 }; /* the zip methods an inflater reads */
enum inflate_status { INFLATE_MORE, INFLATE_END, INFLATE_DAMAGED };

/* Pick the fastest inflater this system has, once, before any thread uses one: ISA-L
 * unless it cannot be loaded or CDM_TEST_INFLATE=zlib (the tests' way to run both). */
void inflate_choose(void);
/* Which one: "ISA-L" or "zlib". */
const char *inflate_engine(void);

struct inflater;
struct inflater *inflater_new(void);
/* Start an entry of method ZIP_STORED or ZIP_DEFLATED. */
void inflater_begin(struct inflater *f, int method);
/* Take up to avail bytes from in (*used of them taken) and write up to cap bytes to out
 * (*made written). INFLATE_END once the entry's data has ended (a stored entry never
 * ends by itself: its size says where); INFLATE_DAMAGED on data that is not deflate. */
enum inflate_status inflater_step(struct inflater *f, const unsigned char *in, size_t avail,
                                  size_t *used, unsigned char *out, size_t cap, size_t *made);
/* The CRC-32 of the bytes made since inflater_begin. */
uint32_t inflater_crc(struct inflater *f);
void inflater_free(struct inflater *f);

#endif
