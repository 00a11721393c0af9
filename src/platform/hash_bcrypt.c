/* SHA-256 (sha256.h), SHA-1 (sha1.h) and MD5 (md5.h) through Windows' CNG (BCrypt): no
 * crypto code of our own, no OpenSSL DLL. Each is one BCrypt hash of its algorithm. */
#include "md5.h"
#include "sha1.h"
#include "sha256.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <bcrypt.h>

struct bcrypt_hash {
    const char *name; /* for the message of a failure */
    BCRYPT_ALG_HANDLE alg;
    BCRYPT_HASH_HANDLE hash;
};

static void crypto_failed(const struct bcrypt_hash *h, const char *what, NTSTATUS status)
{
    fprintf(stderr, "cdm: BCrypt %s failed in %s (status 0x%08lx)\n", h->name, what,
            (unsigned long)status);
    abort();
}

static void hash_reset(struct bcrypt_hash *h)
{
    /* A fresh hash object rather than BCRYPT_HASH_REUSABLE_FLAG, which needs Windows 8
     * and which Wine does not take. The object memory is BCrypt's own (NULL, 0). */
    if (h->hash)
        BCryptDestroyHash(h->hash);
    h->hash = NULL;
    NTSTATUS st = BCryptCreateHash(h->alg, &h->hash, NULL, 0, NULL, 0, 0);
    if (!BCRYPT_SUCCESS(st))
        crypto_failed(h, "BCryptCreateHash", st);
}

static void hash_open(struct bcrypt_hash *h, const char *name, LPCWSTR algorithm)
{
    h->name = name;
    NTSTATUS st = BCryptOpenAlgorithmProvider(&h->alg, algorithm, NULL, 0);
    if (!BCRYPT_SUCCESS(st))
        crypto_failed(h, "BCryptOpenAlgorithmProvider", st);
    hash_reset(h);
}

static void hash_update(struct bcrypt_hash *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n) {
        ULONG chunk = n > (1u << 30) ? (1u << 30) : (ULONG)n;
        NTSTATUS st = BCryptHashData(h->hash, (PUCHAR)p, chunk, 0);
        if (!BCRYPT_SUCCESS(st))
            crypto_failed(h, "BCryptHashData", st);
        p += chunk;
        n -= chunk;
    }
}

/* The digest (size bytes) as hex into out, and the hash started over. */
static void hash_finish_hex(struct bcrypt_hash *h, unsigned char *digest, ULONG size, char *out)
{
    NTSTATUS st = BCryptFinishHash(h->hash, digest, size, 0);
    if (!BCRYPT_SUCCESS(st))
        crypto_failed(h, "BCryptFinishHash", st);
    hex_encode(digest, size, out);
    hash_reset(h);
}

static void hash_close(struct bcrypt_hash *h)
{
    if (h->hash)
        BCryptDestroyHash(h->hash);
    if (h->alg)
        BCryptCloseAlgorithmProvider(h->alg, 0);
}

/* ---- SHA-256 ------------------------------------------------------------------------- */

struct sha256 {
    struct bcrypt_hash h;
};

struct sha256 *sha256_new(void)
{
    struct sha256 *s = xcalloc(1, sizeof(*s));
    hash_open(&s->h, "SHA-256", BCRYPT_SHA256_ALGORITHM);
    return s;
}

void sha256_reset(struct sha256 *s)
{
    hash_reset(&s->h);
}

void sha256_update(struct sha256 *s, const void *data, size_t n)
{
    hash_update(&s->h, data, n);
}

void sha256_finish_hex(struct sha256 *s, char out[65])
{
    unsigned char digest[32];
    hash_finish_hex(&s->h, digest, sizeof(digest), out);
}

void sha256_free(struct sha256 *s)
{
    if (!s)
        return;
    hash_close(&s->h);
    free(s);
}

/* ---- MD5 ----------------------------------------------------------------------------- */

struct md5 {
    struct bcrypt_hash h;
};

struct md5 *md5_new(void)
{
    struct md5 *m = xcalloc(1, sizeof(*m));
    hash_open(&m->h, "MD5", BCRYPT_MD5_ALGORITHM);
    return m;
}

void md5_update(struct md5 *m, const void *data, size_t n)
{
    hash_update(&m->h, data, n);
}

void md5_finish_hex(struct md5 *m, char out[33])
{
    unsigned char digest[16];
    hash_finish_hex(&m->h, digest, sizeof(digest), out);
}

void md5_free(struct md5 *m)
{
    if (!m)
        return;
    hash_close(&m->h);
    free(m);
}

/* ---- SHA-1 --------------------------------------------------------------------------- */

struct sha1 {
    struct bcrypt_hash h;
};

struct sha1 *sha1_new(void)
{
    struct sha1 *s = xcalloc(1, sizeof(*s));
    hash_open(&s->h, "SHA-1", BCRYPT_SHA1_ALGORITHM);
    return s;
}

void sha1_update(struct sha1 *s, const void *data, size_t n)
{
    hash_update(&s->h, data, n);
}

void sha1_finish_hex(struct sha1 *s, char out[41])
{
    unsigned char digest[20];
    hash_finish_hex(&s->h, digest, sizeof(digest), out);
}

void sha1_free(struct sha1 *s)
{
    if (!s)
        return;
    hash_close(&s->h);
    free(s);
}
