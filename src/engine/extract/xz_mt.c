/* liblzma's multi-threaded decoder behind xz_mt.h. */
#include "xz_mt.h"
#include "base/util.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

struct xz_mt {
    lzma_stream strm;
    xz_input_fn input;
    void *arg;
    int at_end; /* the input said it has no more */
};

bool xz_mt_exists(void)
{
    return true;
}

struct xz_mt *xz_mt_new(unsigned threads, uint64_t memlimit, xz_input_fn input, void *arg)
{
    struct xz_mt *x = xcalloc(1, sizeof(*x));
    lzma_stream init = LZMA_STREAM_INIT;
    x->strm = init;
    x->input = input;
    x->arg = arg;
    lzma_mt mt = {
        .flags = LZMA_CONCATENATED, /* several streams one after another, as xz writes */
        .threads = threads ? threads : 1,
        .timeout = 0,
        .memlimit_threading = memlimit,
        .memlimit_stop = UINT64_MAX, /* never refuse an archive for its memory: go slower */
    };
    if (lzma_stream_decoder_mt(&x->strm, &mt) != LZMA_OK) {
        free(x);
        return NULL;
    }
    return x;
}

long long xz_mt_read(struct xz_mt *x, unsigned char *out, size_t size, const char **why)
{
    x->strm.next_out = out;
    x->strm.avail_out = size;
    while (x->strm.avail_out == size) {
        if (x->strm.avail_in == 0 && !x->at_end) {
            const unsigned char *buf = NULL;
            long long n = x->input(x->arg, &buf);
            if (n < 0)
                return XZ_MT_INPUT;
            x->at_end = n == 0;
            x->strm.next_in = buf;
            x->strm.avail_in = (size_t)n;
        }
        lzma_ret r = lzma_code(&x->strm, x->at_end ? LZMA_FINISH : LZMA_RUN);
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_OK)
            continue;
        switch (r) {
        case LZMA_BUF_ERROR:
            *why = "the xz stream ends too early (cut short)";
            break;
        case LZMA_FORMAT_ERROR:
            *why = "it is not an xz stream";
            break;
        case LZMA_OPTIONS_ERROR:
            *why = "the xz stream uses options this liblzma does not know";
            break;
        case LZMA_MEM_ERROR:
            *why = "no memory for the xz decoder";
            break;
        default:
            *why = "the xz stream's data or its check is damaged";
            break;
        }
        return XZ_MT_DAMAGED;
    }
    return (long long)(size - x->strm.avail_out);
}

void xz_mt_free(struct xz_mt *x)
{
    if (!x)
        return;
    lzma_end(&x->strm);
    free(x);
}
