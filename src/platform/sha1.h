/* SHA-1 from the platform's crypto (Nettle on POSIX, BCrypt on Windows), only because SPDX
 * 2.3 asks every file of a bill of materials for one (cdm sbom): it never names nor vouches
 * for anything cdm records, which is SHA-256 (sha256.h). */
#ifndef CDM_SHA1_H
#define CDM_SHA1_H

#include <stddef.h>

struct sha1;

struct sha1 *sha1_new(void);
void sha1_update(struct sha1 *h, const void *data, size_t n);
/* Writes 40 lowercase hex digits and a NUL; the hash starts over after. */
void sha1_finish_hex(struct sha1 *h, char out[41]);
void sha1_free(struct sha1 *h);

#endif
