/* MD5 from the platform's crypto (Nettle on POSIX, BCrypt on Windows), only to check the
 * lists that packagers still write with it (a Debian package's md5sums): it never names
 * nor vouches for anything cdm records, which is SHA-256 (sha256.h). */
#ifndef CDM_MD5_H
#define CDM_MD5_H

#include <stddef.h>

struct md5;

struct md5 *md5_new(void);
void md5_update(struct md5 *h, const void *data, size_t n);
/* Writes 32 lowercase hex digits and a NUL; the hash starts over after. */
void md5_finish_hex(struct md5 *h, char out[33]);
void md5_free(struct md5 *h);

#endif
