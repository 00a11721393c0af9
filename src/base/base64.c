/* Base64: see base64.h. */
#include "base/base64.h"

#include <string.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(const void *data, size_t n, struct strbuf *out)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char quad[4] = {alphabet[v >> 18 & 63], alphabet[v >> 12 & 63],
                        i + 1 < n ? alphabet[v >> 6 & 63] : '=',
                        i + 2 < n ? alphabet[v & 63] : '='};
        sb_addn(out, quad, 4);
    }
}

/* The URL's and file names' alphabet (a wheel's RECORD): '-' and '_' for '+' and '/'. */
static const char url_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int sextet(const char *letters, char c)
{
    const char *at = c ? strchr(letters, c) : NULL;
    return at ? (int)(at - letters) : -1;
}

static bool decode(const char *letters, const char *text, struct strbuf *out)
{
    size_t len = strlen(text);
    while (len && text[len - 1] == '=')
        len--;
    if (len % 4 == 1)
        return false;
    struct strbuf got = STRBUF_INIT;
    unsigned v = 0, bits = 0;
    for (size_t i = 0; i < len; i++) {
        int s = sextet(letters, text[i]);
        if (s < 0) {
            sb_free(&got);
            return false;
        }
        v = (v << 6 | (unsigned)s) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            char byte = (char)(v >> bits & 0xff);
            sb_addn(&got, &byte, 1);
        }
    }
    sb_addn(out, got.buf ? got.buf : "", got.len);
    sb_free(&got);
    return true;
}

bool base64_decode(const char *text, struct strbuf *out)
{
    return decode(alphabet, text, out);
}

bool base64url_decode(const char *text, struct strbuf *out)
{
    return decode(url_alphabet, text, out);
}
