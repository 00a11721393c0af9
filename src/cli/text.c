/* Escaping untrusted text for terminals and JSON (text.h). */
#include "text.h"

#include <stdarg.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 when it is not one: no
 * overlong forms, no surrogates, nothing past U+10FFFF (RFC 3629). */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (!n || p[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) ||
        (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] > 0x8F))
        return 0;
    return n;
}

void text_escape(struct strbuf *out, const char *s)
{
    /* Runs of bytes that need no escape are copied whole: cdm list prints thousands of
     * lines through here. */
    const unsigned char *p = (const unsigned char *)s, *run = p;
    while (*p) {
        if (*p >= 0x20 && *p < 0x7f) {
            p++;
            continue;
        }
        size_t n = utf8_len(p);
        bool control = n == 0 || (n == 1 && ((*p < 0x20 && *p != '\t') || *p == 0x7f));
        bool c1 = n == 2 && p[0] == 0xC2 && p[1] < 0xA0; /* 0x9b is a CSI to some terminals */
        if (!control && !c1) {
            p += n;
            continue;
        }
        sb_addn(out, (const char *)run, (size_t)(p - run));
        if (control)
            sb_addf(out, "\\x%02x", *p++);
        else {
            sb_addf(out, "\\u%04x", p[1]);
            p += 2;
        }
        run = p;
    }
    sb_addn(out, (const char *)run, (size_t)(p - run));
}

bool text_utf8(struct strbuf *out, const char *s)
{
    /* Valid runs are copied whole, as in text_escape: cdm list --json goes through here
     * for every path. */
    bool valid = true;
    const unsigned char *p = (const unsigned char *)s, *run = p;
    while (*p) {
        size_t n = *p < 0x80 ? 1 : utf8_len(p);
        if (n) {
            p += n;
            continue;
        }
        sb_addn(out, (const char *)run, (size_t)(p - run));
        sb_add(out, "\xEF\xBF\xBD");
        valid = false;
        run = ++p;
    }
    sb_addn(out, (const char *)run, (size_t)(p - run));
    return valid;
}

void cli_vfprintf(FILE *out, const char *fmt, va_list ap)
{
    struct strbuf raw = STRBUF_INIT, shown = STRBUF_INIT;
    sb_vaddf(&raw, fmt, ap);
    bool newline = raw.len && raw.buf[raw.len - 1] == '\n';
    if (newline)
        raw.buf[--raw.len] = '\0';
    text_escape(&shown, sb_str(&raw));
    if (newline)
        sb_addc(&shown, '\n');
    fputs(sb_str(&shown), out);
    sb_free(&shown);
    sb_free(&raw);
}

void cli_eprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void cli_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vfprintf(stdout, fmt, ap);
    va_end(ap);
}
