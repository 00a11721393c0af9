/* Base64 (RFC 4648, with padding): registry credentials are kept and sent in it. */
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

#endif
