/* The bytes of an NTFS junction (see junction.h); no system calls here. */
#include "junction.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 8u  /* tag, data length, reserved */
#define NAMES_AT    16u /* the four u16 name fields come first */
/* A symbolic link's buffer has a u32 of flags after them; bit 0: a relative target. */
#define SYMLINK_NAMES_AT          20u
#define SYMLINK_FLAG_RELATIVE_BIT 1u
static const char substitute_prefix[] = "\\??\\";

static bool is_sep(char c)
{
    return c == '\\' || c == '/';
}

static bool is_drive_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

const char *junction_normalise(const char *target, char **out)
{
    *out = NULL;
    const char *p = target;
    /* "\\?\" and "\??\" only lift Win32's path rules; the path after them is the same. */
    if (is_sep(p[0]) && (p[1] == '?' || is_sep(p[1])) && p[2] == '?' && is_sep(p[3])) {
        p += 4;
        if ((p[0] == 'U' || p[0] == 'u') && (p[1] == 'N' || p[1] == 'n') &&
            (p[2] == 'C' || p[2] == 'c') && is_sep(p[3]))
            return "is a network path; junctions can only point to a local volume";
    } else if (is_sep(p[0]) && is_sep(p[1])) {
        return "is a network path; junctions can only point to a local volume";
    }
    if (!is_drive_letter(p[0]) || p[1] != ':' || !is_sep(p[2]))
        return "is not an absolute path with a drive letter";
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, (char)(p[0] >= 'a' ? p[0] - 'a' + 'A' : p[0]));
    sb_add(&sb, ":\\");
    bool first = true;
    for (const char *c = p + 3; *c;) {
        size_t n = 0;
        while (c[n] && !is_sep(c[n]))
            n++;
        if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) {
            sb_free(&sb);
            return "has a '.' or '..' component; give the path without them";
        }
        if (n) {
            if (!first)
                sb_addc(&sb, '\\');
            sb_addn(&sb, c, n);
            first = false;
        }
        c += n;
        while (is_sep(*c))
            c++;
    }
    *out = sb_detach(&sb);
    return NULL;
}

/* One code point from UTF-8; 0 on an invalid sequence (NUL never reaches here). */
static uint32_t utf8_next(const unsigned char **s)
{
    const unsigned char *p = *s;
    uint32_t c = p[0];
    int extra;
    uint32_t min;
    if (c < 0x80) {
        *s = p + 1;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        extra = 1, min = 0x80, c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        extra = 2, min = 0x800, c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        extra = 3, min = 0x10000, c &= 0x07;
    } else {
        return 0;
    }
    for (int i = 1; i <= extra; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *s = p + 1 + extra;
    return c;
}

/* UTF-8 to UTF-16LE bytes, appended; false on invalid UTF-8. */
static bool add_utf16(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t c = utf8_next(&p);
        if (!c)
            return false;
        uint16_t units[2];
        int n = 1;
        if (c >= 0x10000) {
            c -= 0x10000;
            units[0] = (uint16_t)(0xD800 | (c >> 10));
            units[1] = (uint16_t)(0xDC00 | (c & 0x3FF));
            n = 2;
        } else {
            units[0] = (uint16_t)c;
        }
        for (int i = 0; i < n; i++) {
            sb_addc(sb, (char)(units[i] & 0xFF));
            sb_addc(sb, (char)(units[i] >> 8));
        }
    }
    return true;
}

static void put16(unsigned char *p, size_t v)
{
    p[0] = (unsigned char)(v & 0xFF);
    p[1] = (unsigned char)((v >> 8) & 0xFF);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)((v >> (8 * i)) & 0xFF);
}

const char *junction_build(const char *target, unsigned char **buf, size_t *size)
{
    *buf = NULL;
    *size = 0;
    char *norm = NULL;
    const char *why = junction_normalise(target, &norm);
    if (why)
        return why;
    struct strbuf sub = STRBUF_INIT, print = STRBUF_INIT;
    sb_add(&sub, ""); /* so an empty name still has a buffer */
    sb_add(&print, "");
    bool valid =
        add_utf16(&sub, substitute_prefix) && add_utf16(&sub, norm) && add_utf16(&print, norm);
    free(norm);
    size_t total = NAMES_AT + sub.len + 2 + print.len + 2;
    if (!valid)
        why = "is not valid UTF-8";
    else if (total > JUNCTION_MAX_BUFFER)
        why = "is too long for a junction (its reparse data would pass 16 KiB)";
    if (why) {
        sb_free(&sub);
        sb_free(&print);
        return why;
    }
    unsigned char *b = xcalloc(1, total);
    put32(b, JUNCTION_TAG_MOUNT_POINT);
    put16(b + 4, total - HEADER_SIZE);
    put16(b + 8, 0);
    put16(b + 10, sub.len);
    put16(b + 12, sub.len + 2);
    put16(b + 14, print.len);
    memcpy(b + NAMES_AT, sub.buf, sub.len);
    memcpy(b + NAMES_AT + sub.len + 2, print.buf, print.len);
    sb_free(&sub);
    sb_free(&print);
    *buf = b;
    *size = total;
    return NULL;
}

/* UTF-16LE bytes to UTF-8; NULL on unpaired surrogates or NUL. */
static char *utf16_to_utf8(const unsigned char *p, size_t bytes)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "");
    for (size_t i = 0; i < bytes; i += 2) {
        uint32_t c = (uint32_t)load_le(p + i, 2);
        if (c >= 0xD800 && c <= 0xDBFF && i + 3 < bytes) {
            uint32_t low = (uint32_t)load_le(p + i + 2, 2);
            if (low < 0xDC00 || low > 0xDFFF)
                goto bad;
            c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
            i += 2;
        } else if ((c >= 0xD800 && c <= 0xDFFF) || c == 0) {
            goto bad;
        }
        if (c < 0x80) {
            sb_addc(&sb, (char)c);
        } else if (c < 0x800) {
            sb_addc(&sb, (char)(0xC0 | (c >> 6)));
            sb_addc(&sb, (char)(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            sb_addc(&sb, (char)(0xE0 | (c >> 12)));
            sb_addc(&sb, (char)(0x80 | ((c >> 6) & 0x3F)));
            sb_addc(&sb, (char)(0x80 | (c & 0x3F)));
        } else {
            sb_addc(&sb, (char)(0xF0 | (c >> 18)));
            sb_addc(&sb, (char)(0x80 | ((c >> 12) & 0x3F)));
            sb_addc(&sb, (char)(0x80 | ((c >> 6) & 0x3F)));
            sb_addc(&sb, (char)(0x80 | (c & 0x3F)));
        }
    }
    return sb_detach(&sb);
bad:
    sb_free(&sb);
    return NULL;
}

/* The substitute name of a buffer whose names start at names_at (16 for a junction, 20 for
 * a symbolic link, whose flags come first), UTF-8; NULL when the buffer is inconsistent. */
static char *substitute_name(const unsigned char *buf, size_t size, size_t names_at)
{
    size_t data = (size_t)load_le(buf + 4, 2);
    if (size < names_at || HEADER_SIZE + data > size || HEADER_SIZE + data < names_at)
        return NULL;
    size_t names = HEADER_SIZE + data - names_at;
    size_t off = (size_t)load_le(buf + 8, 2), len = (size_t)load_le(buf + 10, 2);
    if (off % 2 || len % 2 || off + len > names)
        return NULL;
    return utf16_to_utf8(buf + names_at + off, len);
}

/* A symbolic link: its target only when it is absolute ("\??\X:\..."), the one form a
 * directory symbolic link that cdm makes has (a relative one is never cdm's). */
static enum junction_kind symlink_parse(const unsigned char *buf, size_t size, char **target)
{
    if (size < SYMLINK_NAMES_AT || load_le(buf + NAMES_AT, 4) & SYMLINK_FLAG_RELATIVE_BIT)
        return JUNCTION_SYMLINK;
    char *sub = substitute_name(buf, size, SYMLINK_NAMES_AT);
    if (sub && str_starts_with(sub, substitute_prefix)) {
        const char *rest = sub + strlen(substitute_prefix);
        if (is_drive_letter(rest[0]) && rest[1] == ':' && is_sep(rest[2]))
            *target = xstrdup(rest);
    }
    free(sub);
    return JUNCTION_SYMLINK;
}

enum junction_kind junction_parse(const unsigned char *buf, size_t size, char **target)
{
    *target = NULL;
    if (size < HEADER_SIZE)
        return JUNCTION_INVALID;
    uint32_t tag = (uint32_t)load_le(buf, 4);
    if (tag == JUNCTION_TAG_SYMLINK)
        return symlink_parse(buf, size, target);
    if (tag != JUNCTION_TAG_MOUNT_POINT)
        return JUNCTION_OTHER;
    char *sub = substitute_name(buf, size, NAMES_AT);
    if (!sub)
        return JUNCTION_INVALID;
    enum junction_kind kind = JUNCTION_OTHER;
    if (str_starts_with(sub, substitute_prefix)) {
        const char *rest = sub + strlen(substitute_prefix);
        if (!strncmp(rest, "Volume{", 7))
            kind = JUNCTION_VOLUME;
        else if (is_drive_letter(rest[0]) && rest[1] == ':') {
            kind = JUNCTION_OURS;
            *target = xstrdup(rest);
        }
    }
    free(sub);
    return kind;
}
