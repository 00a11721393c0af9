#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "cdm: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *xcalloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (!p)
        out_of_memory(count * n);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

void *alloc_grow(void *p, size_t nr, size_t size)
{
    /* full at 8, 16, 32...: the sizes ALLOC_GROW gave it; a first one holds at least 8 */
    if (p && nr && (nr < 8 || (nr & (nr - 1))))
        return p;
    size_t want = nr < 8 ? 8 : 2 * nr;
    if (want < nr || want > SIZE_MAX / size)
        out_of_memory(SIZE_MAX);
    return xrealloc(p, want * size);
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    return sb_detach(&sb);
}

static void sb_grow(struct strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    sb->buf = xrealloc(sb->buf, cap);
    sb->cap = cap;
}

void sb_addn(struct strbuf *sb, const char *s, size_t n)
{
    sb_grow(sb, n);
    if (n) /* s may be NULL when n is 0 (a stored zip entry's empty block) */
        memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_add(struct strbuf *sb, const char *s)
{
    sb_addn(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
    sb_addn(sb, &c, 1);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    /* Format into the room there is; only when that is too small, grow and format again
     * (formatting twice every time doubled the cost of printing 10,000 lines). */
    sb_grow(sb, 64);
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, copy);
    va_end(copy);
    if (n < 0) {
        sb->buf[sb->len] = '\0';
        return;
    }
    if ((size_t)n >= sb->cap - sb->len) {
        sb_grow(sb, (size_t)n);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    }
    sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

const char *sb_str(const struct strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}

char *sb_detach(struct strbuf *sb)
{
    char *s = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return s;
}

void sb_free(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

bool sb_read_stream(struct strbuf *sb, FILE *f, size_t max)
{
    /* Stops at max: reading on to discard the rest read a whole 366 MB archive to learn
     * whether its first four bytes say zip (a pipe: sb_read_command_output). */
    char buf[4096];
    size_t n, kept = 0;
    while (kept < max) {
        size_t want = max - kept < sizeof(buf) ? max - kept : sizeof(buf);
        if ((n = fread(buf, 1, want, f)) == 0)
            break;
        sb_addn(sb, buf, n);
        kept += n;
    }
    return !ferror(f);
}

bool sb_read_command_output(struct strbuf *sb, FILE *f, size_t max)
{
    bool read = sb_read_stream(sb, f, max);
    char rest[4096]; /* what is past max is read and dropped */
    while (fread(rest, 1, sizeof(rest), f) > 0)
        ;
    return read && !ferror(f);
}

void strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

/* copy_str and copy_text; without copy_str's attribute, so copy_text may drop the result. */
static bool copy_bounded(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size) {
        if (size) {
            memcpy(dst, src, size - 1);
            dst[size - 1] = '\0';
        }
        return false;
    }
    memcpy(dst, src, n + 1);
    return true;
}

bool copy_str(char *dst, size_t size, const char *src)
{
    return copy_bounded(dst, size, src);
}

void copy_text(char *dst, size_t size, const char *src)
{
    copy_bounded(dst, size, src);
}

bool str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool str_ends_with_icase(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

bool str_starts_with_icase(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_sep(char c)
{
    return c == '/' || c == '\\';
}

char *path_join(const char *a, const char *b)
{
    size_t n = strlen(a);
    while (n > 1 && is_sep(a[n - 1]))
        n--;
    while (is_sep(*b))
        b++;
    if (n == 0)
        return xstrdup(b);
    /* A Windows path (C:\... or \\server\...) goes on with its own separator, so that
     * the paths shown to Windows users do not mix the two. */
    bool drive = isalpha((unsigned char)a[0]) && a[1] == ':' && a[2] == '\\';
    bool windows = drive || (a[0] == '\\' && a[1] == '\\');
    return xasprintf("%.*s%c%s", (int)n, a, windows ? '\\' : '/', b);
}

const char *path_basename(const char *path)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (is_sep(*p) && p[1])
            base = p + 1;
    return base;
}

char *path_slashes_to(char *path, char sep)
{
    for (char *p = path; sep != '/' && *p; p++)
        if (*p == '/')
            *p = sep;
    return path;
}

static const char *skip_blanks(const char *p, bool spaced)
{
    while (spaced && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

char *text_key_value(const char *text, const char *key, bool spaced)
{
    size_t klen = strlen(key);
    for (const char *line = text; *line; line += strspn(line, "\r\n")) {
        size_t len = strcspn(line, "\r\n");
        const char *end = line + len, *p = skip_blanks(line, spaced);
        line = end;
        if (strncmp(p, key, klen))
            continue;
        p = skip_blanks(p + klen, spaced);
        if (*p != '=')
            continue;
        p = skip_blanks(p + 1, spaced);
        while (spaced && end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        return xstrndup(p, (size_t)(end - p));
    }
    return NULL;
}

bool path_within(const char *path, const char *dir)
{
    return path_below(path, dir) != NULL;
}

const char *name_pid(const char *name, const char *prefix, uint64_t *pid)
{
    *pid = 0;
    if (!str_starts_with(name, prefix))
        return NULL;
    const char *digits = name + strlen(prefix);
    size_t n = strspn(digits, "0123456789");
    if (!n || n >= 20)
        return NULL;
    *pid = strtoull(digits, NULL, 10);
    return digits + n;
}

const char *path_below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && (dir[n - 1] == '/' || dir[n - 1] == '\\'))
        n--;
    if (n == 1 && (dir[0] == '/' || dir[0] == '\\')) /* the root holds every absolute path */
        return path[0] == dir[0] ? path + 1 : NULL;
    if (strncmp(path, dir, n) || (path[n] && path[n] != '/' && path[n] != '\\'))
        return NULL;
    return path[n] ? path + n + 1 : path + n;
}

char *path_dirname(const char *path)
{
    const char *last = NULL;
    for (const char *p = path; *p; p++)
        if (is_sep(*p))
            last = p;
    if (!last)
        return xstrdup(".");
    if (last == path)
        return xstrdup("/");
    /* "C:\x" lies in the drive's root "C:\", as "/x" in "/": a bare "C:" is the drive's
     * current folder to Windows, and its own dirname "." the process's, so walks upwards
     * (a git work tree, a project) went on into wherever cdm was started. */
    if (last == path + 2 && path[1] == ':' && isalpha((unsigned char)path[0]))
        return xstrndup(path, 3);
    return xstrndup(path, (size_t)(last - path));
}

void hex_encode(const unsigned char *bytes, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[bytes[i] >> 4];
        out[2 * i + 1] = hex[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

size_t str_edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    /* Three rows: a swap of two neighbours ("lsit") looks two rows back. */
    size_t *rows = xmalloc(3 * (lb + 1) * sizeof(*rows));
    size_t *older = rows, *prev = rows + (lb + 1), *cur = rows + 2 * (lb + 1);
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t best = cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t v = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                older[j - 2] + 1 < v)
                v = older[j - 2] + 1;
            cur[j] = v;
            if (v < best)
                best = v;
        }
        if (best > limit) {
            free(rows);
            return limit + 1;
        }
        size_t *t = older;
        older = prev;
        prev = cur;
        cur = t;
    }
    size_t d = prev[lb];
    free(rows);
    return d > limit ? limit + 1 : d;
}

const char *str_closest(const char *word, const char *const *candidates, size_t n)
{
    size_t limit = strlen(word) / 3;
    limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
    const char *best = NULL;
    size_t best_d = limit + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = str_edit_distance(word, candidates[i], limit);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}

void format_size(char *out, size_t size, unsigned long long bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < CDM_ARRAY_LEN(units)) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, size, "%llu B", bytes);
    else
        snprintf(out, size, "%.1f %s", v, units[u]);
}
