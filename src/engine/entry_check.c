/* The checks on archive entries: names, kinds, links. See entry_check.h. */
#include "entry_check.h"
#include "base/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *entry_path_check(const char *raw, char *out, size_t size)
{
    if (!raw || !*raw)
        return "has an empty name";
    if (raw[0] == '/' || raw[0] == '\\')
        return "is an absolute path";
    if (isalpha((unsigned char)raw[0]) && raw[1] == ':')
        return "names a drive";
    struct strbuf sb = STRBUF_INIT;
    const char *p = raw;
    const char *why = NULL;
    while (*p && !why) {
        const char *start = p;
        while (*p && *p != '/' && *p != '\\')
            p++;
        size_t n = (size_t)(p - start);
        if (n == 2 && start[0] == '.' && start[1] == '.')
            why = "goes up with '..'";
        else if (n > 0 && !(n == 1 && start[0] == '.')) {
            if (memchr(start, ':', n))
                why = "has a ':' (a drive or an NTFS stream)";
            if (sb.len)
                sb_addc(&sb, '/');
            sb_addn(&sb, start, n);
        }
        while (*p == '/' || *p == '\\')
            p++;
    }
    if (!why && sb.len == 0)
        why = "has an empty name";
    if (!why && !copy_str(out, size, sb_str(&sb)))
        why = "is too long";
    sb_free(&sb);
    return why;
}

bool link_target_inside(const char *link_path, const char *target)
{
    if (!*target || target[0] == '/' || target[0] == '\\' ||
        (isalpha((unsigned char)target[0]) && target[1] == ':'))
        return false;
    /* depth of the folder holding the link */
    int depth = 0;
    for (const char *p = link_path; *p; p++)
        if (*p == '/')
            depth++;
    for (const char *p = target; *p;) {
        const char *start = p;
        while (*p && *p != '/' && *p != '\\')
            p++;
        size_t n = (size_t)(p - start);
        if (n == 2 && start[0] == '.' && start[1] == '.') {
            if (--depth < 0)
                return false;
        } else if (n > 0 && !(n == 1 && start[0] == '.')) {
            depth++;
        }
        while (*p == '/' || *p == '\\')
            p++;
    }
    return true;
}

void entry_checker_free(struct entry_checker *c)
{
    for (size_t i = 0; i < c->link_count; i++)
        free(c->links[i]);
    free(c->links);
    c->links = NULL;
    c->link_count = 0;
}

/* An entry below a link accepted earlier would be written through that link. */
static bool below_a_link(const struct entry_checker *c, const char *rel)
{
    for (size_t i = 0; i < c->link_count; i++) {
        size_t n = strlen(c->links[i]);
        if (!strncmp(rel, c->links[i], n) && (rel[n] == '/' || rel[n] == '\0'))
            return true;
    }
    return false;
}

/* Every entry sits below one top folder, which is not part of the version folder. */
static const char *check_top(struct entry_checker *c, struct entry_verdict *v)
{
    const char *slash = strchr(v->path, '/');
    size_t top_len = slash ? (size_t)(slash - v->path) : strlen(v->path);
    if (!c->top[0]) {
        if (top_len >= sizeof(c->top))
            return "has a top folder name that is too long";
        memcpy(c->top, v->path, top_len);
        c->top[top_len] = '\0';
    } else if (strlen(c->top) != top_len || strncmp(c->top, v->path, top_len)) {
        return "is not below the archive's top folder (a cuDNN archive has one)";
    }
    v->rel = slash ? slash + 1 : NULL;
    return NULL;
}

/* A hard link must name a file of this archive below the top folder, not through a link. */
static const char *check_hardlink(const struct entry_checker *c, const char *raw_target,
                                  struct entry_verdict *v)
{
    char target[sizeof(v->target)];
    const char *why = entry_path_check(raw_target, target, sizeof(target));
    size_t top = strlen(c->top);
    if (why || strncmp(target, c->top, top) || target[top] != '/')
        return "is a hard link to a file outside the version folder";
    if (!copy_str(v->target, sizeof(v->target), target + top + 1))
        return "is a hard link whose target's name is too long";
    if (below_a_link(c, v->target))
        return "is a hard link through a symbolic link";
    return NULL;
}

static const char *check_kind(struct entry_checker *c, enum entry_kind kind,
                              const char *link_target, struct entry_verdict *v)
{
    switch (kind) {
    case ENTRY_DIR:
    case ENTRY_FILE:
        return NULL;
    case ENTRY_HARDLINK:
        v->name = v->rel;
        return check_hardlink(c, link_target, v);
    case ENTRY_SYMLINK:
        if (!link_target)
            return "is a link without a target";
        v->name = v->rel;
        if (!link_target_inside(v->rel, link_target))
            return "is a link that points outside the version folder";
        c->links = xrealloc(c->links, (c->link_count + 1) * sizeof(char *));
        c->links[c->link_count++] = xstrdup(v->rel);
        return NULL;
    case ENTRY_DEVICE:
        return "is a device";
    case ENTRY_FIFO:
        return "is a fifo";
    case ENTRY_SOCKET:
        return "is a socket";
    case ENTRY_UNTYPED:
    case ENTRY_UNKNOWN:
        break;
    }
    return "is of an unknown type";
}

void entry_check(struct entry_checker *c, const char *raw, enum entry_kind kind,
                 const char *link_target, struct entry_verdict *v)
{
    memset(v, 0, sizeof(*v));
    v->name = raw ? raw : "(no name)";
    if ((v->why = entry_path_check(raw, v->path, sizeof(v->path))))
        return;
    v->name = v->path;
    if ((v->why = check_top(c, v)))
        return;
    if (!v->rel) {
        if (kind != ENTRY_DIR && kind != ENTRY_UNTYPED)
            v->why = "is a file where the top folder should be";
        return;
    }
    if (below_a_link(c, v->rel)) {
        v->why = "lies below a symbolic link of the archive";
        return;
    }
    if (++c->entries > c->max_entries) {
        v->too_many = true;
        return;
    }
    v->why = check_kind(c, kind, link_target, v);
}
