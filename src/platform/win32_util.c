/* UTF-8 <-> UTF-16, the \\?\ path form, error texts: see win32_util.h. */
#include "win32_util.h"
#include "base/error.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

wchar_t *win_wide(const char *utf8)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, utf8, -1, NULL, 0);
    if (n <= 0) {
        wchar_t *empty = xmalloc(sizeof(wchar_t));
        empty[0] = L'\0';
        return empty;
    }
    wchar_t *w = xmalloc((size_t)n * sizeof(wchar_t));
    MultiByteToWideChar(CP_UTF8, 0, utf8, -1, w, n);
    return w;
}

char *win_narrow(const wchar_t *wide)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
    if (n <= 0)
        return xstrdup("");
    char *s = xmalloc((size_t)n);
    WideCharToMultiByte(CP_UTF8, 0, wide, -1, s, n, NULL, NULL);
    return s;
}

static bool is_sep(wchar_t c)
{
    return c == L'\\' || c == L'/';
}

static bool is_drive(const wchar_t *p)
{
    return ((p[0] >= L'A' && p[0] <= L'Z') || (p[0] >= L'a' && p[0] <= L'z')) && p[1] == L':';
}

static wchar_t *current_dir(void)
{
    DWORD n = GetCurrentDirectoryW(0, NULL);
    wchar_t *buf = xmalloc((n + 1) * sizeof(wchar_t));
    DWORD got = GetCurrentDirectoryW(n + 1, buf);
    if (!got || got > n)
        buf[0] = L'\0';
    return buf;
}

/* The folder that a drive-relative path "X:name" starts from. */
static wchar_t *drive_dir(wchar_t letter)
{
    wchar_t drive[3] = {letter, L':', L'\0'};
    DWORD n = GetFullPathNameW(drive, 0, NULL, NULL);
    wchar_t *buf = xmalloc((n + 4) * sizeof(wchar_t));
    DWORD got = n ? GetFullPathNameW(drive, n + 1, buf, NULL) : 0;
    if (!got || got > n) {
        buf[0] = letter, buf[1] = L':', buf[2] = L'\\', buf[3] = L'\0';
    }
    return buf;
}

struct wbuf {
    wchar_t *p;
    size_t len, cap;
};

static void wb_add(struct wbuf *b, const wchar_t *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        while (b->len + n + 1 > b->cap)
            b->cap = b->cap ? b->cap * 2 : 256;
        b->p = xrealloc(b->p, b->cap * sizeof(wchar_t));
    }
    memcpy(b->p + b->len, s, n * sizeof(wchar_t));
    b->len += n;
    b->p[b->len] = L'\0';
}

/* Append the components of rel to b (which ends at a root of length root_len), resolving
 * "." and ".." by name; ".." never climbs above the root. */
static void add_components(struct wbuf *b, size_t root_len, const wchar_t *rel)
{
    const wchar_t *p = rel;
    while (*p) {
        while (is_sep(*p))
            p++;
        const wchar_t *start = p;
        while (*p && !is_sep(*p))
            p++;
        size_t n = (size_t)(p - start);
        if (n == 0 || (n == 1 && start[0] == L'.'))
            continue;
        if (n == 2 && start[0] == L'.' && start[1] == L'.') {
            while (b->len > root_len && b->p[b->len - 1] != L'\\')
                b->len--;
            if (b->len > root_len)
                b->len--; /* the separator */
            b->p[b->len] = L'\0';
            continue;
        }
        if (b->len == 0 || b->p[b->len - 1] != L'\\')
            wb_add(b, L"\\", 1);
        wb_add(b, start, n);
    }
}

/* Put the root of an absolute path (X: or \\server\share, with or without \\?\) into b
 * as a verbatim root; returns the rest of the path. */
static const wchar_t *add_root(struct wbuf *b, const wchar_t *abs)
{
    if (!wcsncmp(abs, L"\\\\?\\UNC\\", 8))
        abs += 8; /* leaves "server\share" */
    else if (!wcsncmp(abs, L"\\\\?\\", 4) && is_drive(abs + 4))
        abs += 4;
    if (is_drive(abs)) {
        wb_add(b, L"\\\\?\\", 4);
        wb_add(b, abs, 2);
        return abs + 2;
    }
    const wchar_t *p = abs;
    while (is_sep(*p))
        p++;
    wb_add(b, L"\\\\?\\UNC", 7);
    for (int part = 0; part < 2 && *p; part++) {
        const wchar_t *start = p;
        while (*p && !is_sep(*p))
            p++;
        wb_add(b, L"\\", 1);
        wb_add(b, start, (size_t)(p - start));
        while (is_sep(*p))
            p++;
    }
    return p;
}

/* The root of base, then (when base_rest) the rest of base, then rel. */
static wchar_t *make_verbatim(const wchar_t *base, bool base_rest, const wchar_t *rel)
{
    struct wbuf b = {NULL, 0, 0};
    const wchar_t *rest = add_root(&b, base);
    size_t root_len = b.len;
    if (base_rest)
        add_components(&b, root_len, rest);
    if (rel)
        add_components(&b, root_len, rel);
    if (b.len == root_len)
        wb_add(&b, L"\\", 1); /* the root folder itself is "X:\" */
    return b.p;
}

wchar_t *win_path(const char *utf8)
{
    wchar_t *w = win_wide(utf8);
    wchar_t *out;
    if (is_sep(w[0]) && is_sep(w[1]) && w[2] == L'.' && is_sep(w[3])) {
        return w; /* a device (\\.\): taken as it is */
    } else if ((is_drive(w) && is_sep(w[2])) || (is_sep(w[0]) && is_sep(w[1]))) {
        out = make_verbatim(w, true, NULL);
    } else if (is_drive(w)) {
        wchar_t *base = drive_dir(w[0]);
        out = make_verbatim(base, true, w + 2);
        free(base);
    } else {
        /* relative to the current folder, or ("\dir") to the root of its drive or share */
        wchar_t *cwd = current_dir();
        out = make_verbatim(cwd, !is_sep(w[0]), w);
        free(cwd);
    }
    free(w);
    return out;
}

char *win_display_path(const wchar_t *wide)
{
    if (!wcsncmp(wide, L"\\\\?\\UNC\\", 8)) {
        char *rest = win_narrow(wide + 8);
        char *out = xasprintf("\\\\%s", rest);
        free(rest);
        return out;
    }
    if (!wcsncmp(wide, L"\\\\?\\", 4) && is_drive(wide + 4))
        return win_narrow(wide + 4);
    return win_narrow(wide);
}

bool win_is_root(const char *p)
{
    size_t n = strlen(p);
    while (n > 1 && (p[n - 1] == '\\' || p[n - 1] == '/'))
        n--;
    if (n == 1 && (p[0] == '\\' || p[0] == '/'))
        return true;
    if (n == 2 && p[1] == ':')
        return true;
    if (n > 2 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/')) {
        int seps = 0; /* \\server\share has one separator after the leading two */
        for (size_t i = 2; i < n; i++)
            if (p[i] == '\\' || p[i] == '/')
                seps++;
        return seps <= 1;
    }
    return false;
}

char *win_error_text(DWORD code)
{
    wchar_t *msg = NULL;
    DWORD flags =
        FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS;
    DWORD n = FormatMessageW(flags, NULL, code, MAKELANGID(LANG_ENGLISH, SUBLANG_ENGLISH_US),
                             (LPWSTR)&msg, 0, NULL);
    if (!n)
        n = FormatMessageW(flags, NULL, code, 0, (LPWSTR)&msg, 0, NULL);
    HMODULE winhttp = GetModuleHandleW(L"winhttp.dll");
    if (!n && winhttp) /* WinHTTP's own errors (12xxx) have their texts in its module */
        n = FormatMessageW(flags | FORMAT_MESSAGE_FROM_HMODULE, winhttp, code, 0, (LPWSTR)&msg, 0,
                           NULL);
    char *text = n && msg ? win_narrow(msg) : xstrdup("");
    if (msg)
        LocalFree(msg);
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
                   text[len - 1] == '.'))
        text[--len] = '\0';
    /* "Access is denied" -> "access is denied", but leave "NTFS ..." alone */
    if (text[0] >= 'A' && text[0] <= 'Z' && !(text[1] >= 'A' && text[1] <= 'Z'))
        text[0] = (char)(text[0] - 'A' + 'a');
    char *out = len ? xasprintf("%s (error %lu)", text, (unsigned long)code)
                    : xasprintf("Windows error %lu", (unsigned long)code);
    free(text);
    return out;
}

bool win_is_wine(void)
{
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    return ntdll && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

int win_error(cdm_ctx *ctx, int code, DWORD e, const char *fmt, ...)
{
    char *why = win_error_text(e);
    va_list ap;
    va_start(ap, fmt);
    int rc = cdm_error_vset_why(ctx, code, why, fmt, ap);
    va_end(ap);
    free(why);
    return rc;
}

/* One argument as the C runtime's parser reads it back (CommandLineToArgvW rules). */
void win_quote_arg(struct strbuf *sb, const char *arg)
{
    if (*arg && !strpbrk(arg, " \t\n\v\"")) {
        sb_add(sb, arg);
        return;
    }
    sb_addc(sb, '"');
    for (const char *p = arg;; p++) {
        size_t slashes = 0;
        while (*p == '\\') {
            slashes++;
            p++;
        }
        /* backslashes are literal unless a quote (or the closing quote) follows them */
        size_t times = !*p ? 2 * slashes : *p == '"' ? 2 * slashes + 1 : slashes;
        for (size_t i = 0; i < times; i++)
            sb_addc(sb, '\\');
        if (!*p)
            break;
        sb_addc(sb, *p);
    }
    sb_addc(sb, '"');
}
