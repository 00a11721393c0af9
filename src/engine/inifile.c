/* The INI reader of inifile.h: one line at a time, each as long as it is. */
#include "inifile.h"
#include "base/util.h"

#include <string.h>

/* The next line into sb, without its line break. 0 at the end of the file, 1 for a line,
 * -1 for one longer than INIFILE_MAX_LINE, -2 on a read error. */
static int next_line(FILE *f, struct strbuf *sb)
{
    sb_reset(sb);
    char chunk[4096];
    bool any = false;
    while (fgets(chunk, sizeof(chunk), f)) {
        any = true;
        size_t n = strlen(chunk);
        bool end = n && chunk[n - 1] == '\n';
        sb_addn(sb, chunk, end ? n - 1 : n);
        if (sb->len > INIFILE_MAX_LINE)
            return -1;
        if (end)
            break;
    }
    if (ferror(f))
        return -2;
    if (sb->len && sb->buf[sb->len - 1] == '\r')
        sb->buf[--sb->len] = '\0';
    return any ? 1 : 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static char *trim(char *s)
{
    while (is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n && (is_blank(s[n - 1]) || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Cut a comment that starts after a blank: "x ; y" -> "x". */
static void cut_comment(char *s)
{
    for (char *p = s; *p; p++)
        if ((*p == ';' || *p == '#') && p > s && is_blank(p[-1])) {
            *p = '\0';
            return;
        }
}

int inifile_read(FILE *f, inifile_fn fn, void *arg, int *bad_line)
{
    struct strbuf line = STRBUF_INIT;
    char *section = xstrdup("");
    char *name = NULL; /* the value a continuation line adds to */
    int rc = 0, n = 0, got;
    while (!rc && (got = next_line(f, &line)) > 0) {
        n++;
        char *text = line.buf ? line.buf : "";
        if (n == 1 && !strncmp(text, "\xEF\xBB\xBF", 3))
            text += 3;
        bool indented = is_blank(*text);
        char *s = trim(text);
        if (!*s || *s == ';' || *s == '#')
            continue; /* blank lines and comments end no value: configparser's rule */
        if (*s == '[') {
            char *close = strchr(s, ']');
            char *rest = close ? trim(close + 1) : NULL;
            if (!rest || (*rest && *rest != ';' && *rest != '#')) {
                rc = -1;
                break;
            }
            *close = '\0';
            free(section);
            section = xstrdup(trim(s + 1));
            free(name);
            name = NULL;
            continue;
        }
        cut_comment(s);
        s = trim(s);
        if (indented && name) {
            rc = fn(arg, section, name, s, n);
            continue;
        }
        char *eq = s + strcspn(s, "=:");
        if (!*eq || eq == s) {
            rc = -1;
            break;
        }
        *eq = '\0';
        free(name);
        name = xstrdup(trim(s));
        rc = fn(arg, section, name, trim(eq + 1), n);
    }
    if (!rc && got < 0)
        rc = got == -1 ? -1 : -2;
    if (rc == -1)
        *bad_line = n + (got == -1);
    free(name);
    free(section);
    sb_free(&line);
    return rc;
}
