/*
 * The inflaters of inflate.h: zlib's raw inflate (windowBits -15: a zip entry's deflate
 * stream has no zlib header), or ISA-L's igzip where libisal.so.2 loads. ISA-L keeps the
 * CRC-32 itself (ISAL_GZIP_NO_HDR: a raw stream, the gzip CRC, which is zip's); for zlib
 * and stored entries it is zlib's crc32 over each piece made.
 */
#include "inflate.h"
#include "base/util.h"
#include "platform/loader.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef CDM_HAVE_ISAL
#include <isa-l/igzip_lib.h>
typedef void (*isal_init_fn)(struct inflate_state *);
typedef int (*isal_inflate_fn)(struct inflate_state *);
static isal_init_fn isal_init;
static isal_inflate_fn isal_run;
#endif

static bool chosen, use_isal;

void inflate_choose(void)
{
    if (chosen)
        return;
    chosen = true;
#ifdef CDM_HAVE_ISAL
    const char *test = getenv("CDM_TEST_INFLATE");
    if (test && !strcmp(test, "zlib"))
        return;
    char *why = NULL;
    struct loader_lib *lib = loader_open_system("libisal.so.2", &why);
    free(why);
    if (!lib)
        return;
    loader_fn init = loader_sym(lib, "isal_inflate_init");
    loader_fn run = loader_sym(lib, "isal_inflate");
    if (!init || !run) {
        loader_close(lib);
        return;
    }
    isal_init = (isal_init_fn)init;
    isal_run = (isal_inflate_fn)run;
    use_isal = true;
    loader_keep(lib); /* for the rest of the process: each extraction uses it again */
#endif
}

const char *inflate_engine(void)
{
    return use_isal ? "ISA-L" : "zlib";
}

struct inflater {
    int method;
    bool zlib_open;
    uint32_t crc;
    z_stream z;
#ifdef CDM_HAVE_ISAL
    struct inflate_state *isal;
#endif
};

struct inflater *inflater_new(void)
{
    struct inflater *f = xcalloc(1, sizeof(*f));
#ifdef CDM_HAVE_ISAL
    if (use_isal)
        f->isal = xmalloc(sizeof(*f->isal));
#endif
    return f;
}

void inflater_begin(struct inflater *f, int method)
{
    f->method = method;
    f->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    if (method != ZIP_DEFLATED)
        return;
#ifdef CDM_HAVE_ISAL
    if (f->isal) {
        isal_init(f->isal);
        f->isal->crc_flag = ISAL_GZIP_NO_HDR;
        return;
    }
#endif
    if (f->zlib_open)
        inflateReset(&f->z);
    else
        f->zlib_open = inflateInit2(&f->z, -MAX_WBITS) == Z_OK;
}

/* A piece made: its CRC-32, where the inflater does not keep it. */
static void add_crc(struct inflater *f, const unsigned char *out, size_t made)
{
    while (made > 0) {
        uInt n = made > 0x40000000u ? 0x40000000u : (uInt)made;
        f->crc = (uint32_t)crc32(f->crc, out, n);
        out += n;
        made -= n;
    }
}

#ifdef CDM_HAVE_ISAL
static enum inflate_status isal_step(struct inflater *f, const unsigned char *in, size_t avail,
                                     size_t *used, unsigned char *out, size_t cap, size_t *made)
{
    struct inflate_state *s = f->isal;
    uint32_t in_n = avail > UINT32_MAX ? UINT32_MAX : (uint32_t)avail;
    uint32_t out_n = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    s->next_in = (uint8_t *)in;
    s->avail_in = in_n;
    s->next_out = out;
    s->avail_out = out_n;
    int r = isal_run(s);
    *used = in_n - s->avail_in;
    *made = out_n - s->avail_out;
    if (r < 0)
        return INFLATE_DAMAGED;
    if (s->block_state == ISAL_BLOCK_FINISH) {
        f->crc = s->crc;
        return INFLATE_END;
    }
    /* no progress with room on both sides: the stream cannot go on */
    if (*used == 0 && *made == 0 && in_n > 0 && out_n > 0)
        return INFLATE_DAMAGED;
    return INFLATE_MORE;
}
#endif

static enum inflate_status zlib_step(struct inflater *f, const unsigned char *in, size_t avail,
                                     size_t *used, unsigned char *out, size_t cap, size_t *made)
{
    if (!f->zlib_open)
        return INFLATE_DAMAGED; /* no memory for zlib's state */
    uInt in_n = avail > UINT32_MAX ? UINT32_MAX : (uInt)avail;
    uInt out_n = cap > UINT32_MAX ? UINT32_MAX : (uInt)cap;
    f->z.next_in = (Bytef *)in;
    f->z.avail_in = in_n;
    f->z.next_out = out;
    f->z.avail_out = out_n;
    int r = inflate(&f->z, Z_NO_FLUSH);
    *used = in_n - f->z.avail_in;
    *made = out_n - f->z.avail_out;
    add_crc(f, out, *made);
    if (r == Z_STREAM_END)
        return INFLATE_END;
    if (r == Z_OK || (r == Z_BUF_ERROR && (*used || *made || in_n == 0)))
        return INFLATE_MORE;
    return INFLATE_DAMAGED; /* Z_DATA_ERROR, Z_NEED_DICT, Z_MEM_ERROR, or stuck */
}

enum inflate_status inflater_step(struct inflater *f, const unsigned char *in, size_t avail,
                                  size_t *used, unsigned char *out, size_t cap, size_t *made)
{
    if (f->method == ZIP_STORED) {
        size_t n = avail < cap ? avail : cap;
        memcpy(out, in, n);
        *used = *made = n;
        add_crc(f, out, n);
        return INFLATE_MORE;
    }
#ifdef CDM_HAVE_ISAL
    if (f->isal)
        return isal_step(f, in, avail, used, out, cap, made);
#endif
    return zlib_step(f, in, avail, used, out, cap, made);
}

uint32_t inflater_crc(struct inflater *f)
{
    return f->crc;
}

void inflater_free(struct inflater *f)
{
    if (!f)
        return;
    if (f->zlib_open)
        inflateEnd(&f->z);
#ifdef CDM_HAVE_ISAL
    free(f->isal);
#endif
    free(f);
}
