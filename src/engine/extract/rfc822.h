/* The fields of the RFC 822 style headers that packages describe themselves with: a wheel's
 * METADATA and WHEEL, a Debian package's control ("Name: value" lines, the name in any
 * case, a blank line ending the header). */
#ifndef CDM_RFC822_H
#define CDM_RFC822_H

#include <stdbool.h>
#include <stddef.h>

/* The value of field key, its first occurrence before the body, trimmed, into out; false
 * when absent or too long. */
bool rfc822_field(const char *text, const char *key, char *out, size_t size);

#endif
