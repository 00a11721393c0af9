/* MD5 from Nettle on POSIX (md5.h), which is linked for SHA-256 already. */
#include <nettle/md5.h>

/* Nettle's header maps md5_update to nettle_md5_update with a macro; this file's own
 * md5_update (md5.h) is a different function. */
#undef md5_update

#include "md5.h"
#include "base/util.h"

#include <stdlib.h>

struct md5 {
    struct md5_ctx ctx;
};

struct md5 *md5_new(void)
{
    struct md5 *h = xmalloc(sizeof(*h));
    nettle_md5_init(&h->ctx);
    return h;
}

void md5_update(struct md5 *h, const void *data, size_t n)
{
    nettle_md5_update(&h->ctx, n, data);
}

void md5_finish_hex(struct md5 *h, char out[33])
{
    uint8_t digest[MD5_DIGEST_SIZE];
    nettle_md5_digest(&h->ctx, sizeof(digest), digest); /* also resets the context */
    hex_encode(digest, sizeof(digest), out);
}

void md5_free(struct md5 *h)
{
    free(h);
}
