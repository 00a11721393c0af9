/* SHA-256 through Windows' CNG (BCrypt): no crypto code of our own, no OpenSSL DLL. */
#include "sha256.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <bcrypt.h>

struct sha256 {
    BCRYPT_ALG_HANDLE alg;
    BCRYPT_HASH_HANDLE hash;
};

static void crypto_failed(const char *what, NTSTATUS status)
{
    fprintf(stderr, "cdm: BCrypt SHA-256 failed in %s (status 0x%08lx)\n", what,
            (unsigned long)status);
    abort();
}

struct sha256 *sha256_new(void)
{
    struct sha256 *h = xcalloc(1, sizeof(*h));
    NTSTATUS st = BCryptOpenAlgorithmProvider(&h->alg, BCRYPT_SHA256_ALGORITHM, NULL, 0);
    if (!BCRYPT_SUCCESS(st))
        crypto_failed("BCryptOpenAlgorithmProvider", st);
    sha256_reset(h);
    return h;
}

void sha256_reset(struct sha256 *h)
{
    /* A fresh hash object rather than BCRYPT_HASH_REUSABLE_FLAG, which needs Windows 8
     * and which Wine does not take. The object memory is BCrypt's own (NULL, 0). */
    if (h->hash)
        BCryptDestroyHash(h->hash);
    h->hash = NULL;
    NTSTATUS st = BCryptCreateHash(h->alg, &h->hash, NULL, 0, NULL, 0, 0);
    if (!BCRYPT_SUCCESS(st))
        crypto_failed("BCryptCreateHash", st);
}

void sha256_update(struct sha256 *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n) {
        ULONG chunk = n > (1u << 30) ? (1u << 30) : (ULONG)n;
        NTSTATUS st = BCryptHashData(h->hash, (PUCHAR)p, chunk, 0);
        if (!BCRYPT_SUCCESS(st))
            crypto_failed("BCryptHashData", st);
        p += chunk;
        n -= chunk;
    }
}

void sha256_finish_hex(struct sha256 *h, char out[65])
{
    unsigned char digest[32];
    NTSTATUS st = BCryptFinishHash(h->hash, digest, sizeof(digest), 0);
    if (!BCRYPT_SUCCESS(st))
        crypto_failed("BCryptFinishHash", st);
    hex_encode(digest, sizeof(digest), out);
    sha256_reset(h);
}

void sha256_free(struct sha256 *h)
{
    if (!h)
        return;
    if (h->hash)
        BCryptDestroyHash(h->hash);
    if (h->alg)
        BCryptCloseAlgorithmProvider(h->alg, 0);
    free(h);
}
