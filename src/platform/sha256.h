/* SHA-256 from the platform's crypto: Nettle on POSIX, BCrypt on Windows. */
#ifndef CDM_SHA256_H
#define CDM_SHA256_H

#include <stddef.h>

struct sha256;

struct sha256 *sha256_new(void);
void sha256_update(struct sha256 *h, const void *data, size_t n);
/* Writes 64 lowercase hex digits and a NUL; the hash can be used again after a reset. */
void sha256_finish_hex(struct sha256 *h, char out[65]);
void sha256_reset(struct sha256 *h);
void sha256_free(struct sha256 *h);

/* The SHA-256 of n bytes at data, as 64 lowercase hex digits and a NUL (sha256_common.c). */
void sha256_hex_of(const void *data, size_t n, char out[65]);

#endif
