/* No multi-threaded xz decoder in this build (xz_mt.h): libarchive's filter, if any, reads
 * .tar.xz archives instead. */
#include "xz_mt.h"
#include "base/util.h"

bool xz_mt_exists(void)
{
    return false;
}

struct xz_mt *xz_mt_new(unsigned threads, uint64_t memlimit, xz_input_fn input, void *arg)
{
    (void)threads;
    (void)memlimit;
    (void)input;
    (void)arg;
    return NULL;
}

long long xz_mt_read(struct xz_mt *x, unsigned char *out, size_t size, const char **why)
{
    (void)x;
    (void)out;
    (void)size;
    *why = "no xz decoder in this build";
    return XZ_MT_DAMAGED;
}

void xz_mt_free(struct xz_mt *x)
{
    (void)x;
}
