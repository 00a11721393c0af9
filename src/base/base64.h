/* Base64 (RFC 4648): registry credentials are kept and sent in it; a wheel's RECORD gives
 * its files' hashes in the URL-safe alphabet. */
#ifndef CDM_BASE64_H
#define CDM_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* n bytes of data appended to out as base64. */
void base64_encode(const void *data, size_t n, struct strbuf *out);

/* The text of base64 (padding optional, no spaces) appended to out; false, out unchanged,
 * when it is not base64. */
bool base64_decode(const char *text, struct strbuf *out);
/* The same in the URL-safe alphabet ('-' and '_'). */
bool base64url_decode(const char *text, struct strbuf *out);

#endif
