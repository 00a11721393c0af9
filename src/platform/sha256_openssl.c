#include "sha256.h"
#include "base/util.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

struct sha256 {
    EVP_MD_CTX *md;
};

static void crypto_failed(void)
{
    fprintf(stderr, "cdm: OpenSSL SHA-256 failed\n");
    abort();
}

struct sha256 *sha256_new(void)
{
    struct sha256 *h = xmalloc(sizeof(*h));
    h->md = EVP_MD_CTX_new();
    if (!h->md)
        crypto_failed();
    sha256_reset(h);
    return h;
}

void sha256_reset(struct sha256 *h)
{
    if (EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1)
        crypto_failed();
}

void sha256_update(struct sha256 *h, const void *data, size_t n)
{
    if (n && EVP_DigestUpdate(h->md, data, n) != 1)
        crypto_failed();
}

void sha256_finish_hex(struct sha256 *h, char out[65])
{
    unsigned char digest[32];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(h->md, digest, &len) != 1 || len != 32)
        crypto_failed();
    hex_encode(digest, sizeof(digest), out);
    sha256_reset(h);
}

void sha256_free(struct sha256 *h)
{
    if (!h)
        return;
    EVP_MD_CTX_free(h->md);
    free(h);
}
