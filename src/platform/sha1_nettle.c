/* SHA-1 from Nettle on POSIX (sha1.h), which is linked for SHA-256 already. */
#include <nettle/sha1.h>

/* Nettle's header maps sha1_update to nettle_sha1_update with a macro; this file's own
 * sha1_update (sha1.h) is a different function. */
#undef sha1_update

#include "sha1.h"
#include "base/util.h"

#include <stdlib.h>

struct sha1 {
    struct sha1_ctx ctx;
};

struct sha1 *sha1_new(void)
{
    struct sha1 *h = xmalloc(sizeof(*h));
    nettle_sha1_init(&h->ctx);
    return h;
}

void sha1_update(struct sha1 *h, const void *data, size_t n)
{
    nettle_sha1_update(&h->ctx, n, data);
}

void sha1_finish_hex(struct sha1 *h, char out[41])
{
    uint8_t digest[SHA1_DIGEST_SIZE];
    nettle_sha1_digest(&h->ctx, sizeof(digest), digest); /* also resets the context */
    hex_encode(digest, sizeof(digest), out);
}

void sha1_free(struct sha1 *h)
{
    free(h);
}
