/* Reading .gitignore files for one path: see gitignore.h. */
#include "gitignore.h"
#include "base/util.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

char *git_worktree_of(const char *dir)
{
    char *d = xstrdup(dir);
    for (;;) {
        char *git = path_join(d, ".git");
        enum fs_kind kind = fs_kind(git);
        free(git);
        if (kind == FS_DIR || kind == FS_FILE)
            return d;
        char *parent = path_dirname(d);
        bool top = !strcmp(parent, d);
        free(d);
        if (top) {
            free(parent);
            return NULL;
        }
        d = parent;
    }
}

/* One '[...]' at p against c; *end gets the character after ']'. */
static bool match_class(const char *p, char c, const char **end)
{
    bool negate = *p == '!' || *p == '^';
    if (negate)
        p++;
    bool found = false;
    const char *start = p;
    while (*p && (*p != ']' || p == start)) {
        if (p[1] == '-' && p[2] && p[2] != ']') {
            found |= c >= p[0] && c <= p[2];
            p += 3;
        } else {
            found |= *p++ == c;
        }
    }
    *end = *p ? p + 1 : p;
    return found != negate;
}

bool gitignore_match(const char *p, const char *t)
{
    for (; *p; p++, t++) {
        if (*p == '*') {
            bool any = p[1] == '*';
            while (*p == '*')
                p++;
            if (any && *p == '/' && gitignore_match(p + 1, t))
                return true; /* "**" + "/" also matches no folder at all */
            for (;; t++) {
                if (gitignore_match(p, t))
                    return true;
                if (!*t || (!any && *t == '/'))
                    return false;
            }
        }
        if (!*t)
            return false;
        if (*p == '[') {
            const char *end;
            if (*t == '/' || !match_class(p + 1, *t, &end))
                return false;
            p = end - 1;
        } else if (*p == '?') {
            if (*t == '/')
                return false;
        } else {
            if (*p == '\\' && p[1])
                p++;
            if (*p != *t)
                return false;
        }
    }
    return !*t;
}

/* Apply the lines of one ignore file, whose folder is base (relative to the work tree, ""
 * for its top), to rel (relative to the work tree); *ignored keeps the last match. */
static void apply_file(const char *file, const char *base, const char *rel, bool is_dir,
                       bool *ignored)
{
    struct strbuf text = STRBUF_INIT;
    if (!fs_read_file(file, 1 << 20, &text)) {
        sb_free(&text);
        return;
    }
    size_t blen = strlen(base);
    if (blen && !(path_within(rel, base) && rel[blen])) {
        sb_free(&text);
        return;
    }
    const char *under = blen ? rel + blen + 1 : rel; /* rel from the file's folder */
    const char *name = strrchr(under, '/');
    name = name ? name + 1 : under;
    char *all = sb_detach(&text);
    for (char *line = all, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\r' || (line[n - 1] == ' ' && (n < 2 || line[n - 2] != '\\'))))
            line[--n] = '\0';
        if (!n || line[0] == '#')
            continue;
        bool negate = line[0] == '!';
        char *pat = line + negate;
        n = strlen(pat);
        bool dir_only = n && pat[n - 1] == '/';
        if (dir_only)
            pat[--n] = '\0';
        if (!n || (dir_only && !is_dir))
            continue;
        bool anchored = strchr(pat, '/') != NULL;
        if (pat[0] == '/')
            pat++;
        if (gitignore_match(pat, anchored ? under : name))
            *ignored = !negate;
    }
    free(all);
}

/* rel's status by the exclude file and every .gitignore from the top down to rel's folder. */
static bool ignored_path(const char *top, const char *rel, bool is_dir)
{
    bool ignored = false;
    char *exclude = path_join(top, ".git/info/exclude");
    apply_file(exclude, "", rel, is_dir, &ignored);
    free(exclude);
    struct strbuf base = STRBUF_INIT;
    for (const char *p = rel;;) {
        char *folder = base.len ? path_join(top, sb_str(&base)) : xstrdup(top);
        char *file = path_join(folder, ".gitignore");
        apply_file(file, sb_str(&base), rel, is_dir, &ignored);
        free(file);
        free(folder);
        const char *slash = strchr(p, '/');
        if (!slash)
            break;
        sb_reset(&base);
        sb_addf(&base, "%.*s", (int)(slash - rel), rel);
        p = slash + 1;
    }
    sb_free(&base);
    return ignored;
}

bool gitignore_ignores(const char *top, const char *dir, const char *name)
{
    if (!path_within(dir, top))
        return false;
    const char *below = dir + strlen(top);
    while (*below == '/' || *below == '\\')
        below++;
    struct strbuf rel = STRBUF_INIT;
    sb_add(&rel, below);
    for (char *c = rel.buf; c && *c; c++)
        if (*c == '\\')
            *c = '/';
    /* Each folder on the way first: nothing under an ignored folder comes back. */
    bool ignored = false;
    for (size_t i = 0; !ignored && i <= rel.len; i++) {
        if (rel.len && (i == rel.len || rel.buf[i] == '/')) {
            char *part = xasprintf("%.*s", (int)i, rel.buf);
            ignored = ignored_path(top, part, true);
            free(part);
        }
    }
    if (!ignored) {
        char *link = rel.len ? xasprintf("%s/%s", sb_str(&rel), name) : xstrdup(name);
        ignored = ignored_path(top, link, false);
        free(link);
    }
    sb_free(&rel);
    return ignored;
}
