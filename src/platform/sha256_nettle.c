/*
 * SHA-256 from Nettle on POSIX. Nettle is already linked for libarchive, and its x86-64
 * build picks the SHA-NI code at run time (about OpenSSL's speed). OpenSSL's libcrypto
 * was used before; its start-up code runs eight CPUID instructions in every cdm process,
 * each a trap to the hypervisor in a virtual machine: a tenth of `cdm activate --auto`.
 */
#include <nettle/sha2.h>

/* Nettle's header maps sha256_update to nettle_sha256_update with a macro; this file's
 * own sha256_update (sha256.h) is a different function. */
#undef sha256_update

#include "sha256.h"
#include "base/util.h"

#include <stdlib.h>

struct sha256 {
    struct sha256_ctx ctx;
};

struct sha256 *sha256_new(void)
{
    struct sha256 *h = xmalloc(sizeof(*h));
    sha256_reset(h);
    return h;
}

void sha256_reset(struct sha256 *h)
{
    nettle_sha256_init(&h->ctx);
}

void sha256_update(struct sha256 *h, const void *data, size_t n)
{
    nettle_sha256_update(&h->ctx, n, data);
}

void sha256_finish_hex(struct sha256 *h, char out[65])
{
    uint8_t digest[SHA256_DIGEST_SIZE];
    nettle_sha256_digest(&h->ctx, sizeof(digest), digest); /* also resets the context */
    hex_encode(digest, sizeof(digest), out);
}

void sha256_free(struct sha256 *h)
{
    free(h);
}
