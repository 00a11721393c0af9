/* The checks on archive entries: names, kinds, links. See entry_check.h. */
#include "entry_check.h"
#include "base/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* How far a chain of links beside each other is followed (Linux's own limit is 40). */
#define LINK_HOPS 40

/* The seen map's value: an entry's kind, and a symbolic link's index in c->links. */
#define SEEN(kind, index) ((size_t)(kind) | (size_t)(index) << 4)
#define SEEN_KIND(value)  ((enum entry_kind)((value)&15))
#define SEEN_INDEX(value) ((value) >> 4)

static bool is_drive(const char *s)
{
    return isalpha((unsigned char)s[0]) && s[1] == ':';
}

const char *entry_path_check(const char *raw, char *out, size_t size)
{
    if (!raw || !*raw)
        return "has an empty name";
    if (raw[0] == '/' || raw[0] == '\\')
        return "is an absolute path";
    if (is_drive(raw))
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

/* The forms of an absolute target: /x, \x, \\server\share, \\?\C:\x, C:\x, C:/x. */
static const char *absolute_target(const char *target)
{
    if (target[0] == '/' || target[0] == '\\' ||
        (is_drive(target) && (target[2] == '/' || target[2] == '\\')))
        return "points to an absolute path";
    if (strchr(target, ':')) /* C:x is relative to drive C's current folder */
        return "points to a drive or an NTFS stream";
    return NULL;
}

const char *link_name_check(const char *target)
{
    if (!*target)
        return "has an empty target";
    const char *why = absolute_target(target);
    if (why)
        return why;
    if (strpbrk(target, "/\\") || !strcmp(target, ".") || !strcmp(target, ".."))
        return "does not point to a name beside it";
    return NULL;
}

void entry_checker_free(struct entry_checker *c)
{
    for (size_t i = 0; i < c->link_count; i++) {
        free(c->links[i].rel);
        free(c->links[i].stored);
        free(c->links[i].target);
    }
    free(c->links);
    c->links = NULL;
    c->link_count = c->link_cap = 0;
    strmap_free(&c->seen);
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

/* The folders above rel: none may be a file or a link of the archive (nothing is written
 * through a link), and each is remembered as a folder, so that a link or a file coming
 * later under a folder's name is refused too. */
static const char *check_parents(struct entry_checker *c, const char *rel)
{
    for (const char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
        bool added;
        size_t *seen = strmap_put(&c->seen, rel, (size_t)(slash - rel), SEEN(ENTRY_DIR, 0), &added);
        if (added)
            continue;
        switch (SEEN_KIND(*seen)) {
        case ENTRY_DIR:
            break;
        case ENTRY_SYMLINK:
        case ENTRY_HARDLINK:
            return "lies below a link of the archive";
        default:
            return "lies below a file of the archive";
        }
    }
    return NULL;
}

static void hold_link(struct entry_checker *c, const char *rel, const char *stored,
                      const char *target, bool hard)
{
    if (c->link_count == c->link_cap)
        c->links = xrealloc(c->links,
                            (c->link_cap = c->link_cap ? c->link_cap * 2 : 64) * sizeof(*c->links));
    c->links[c->link_count++] =
        (struct entry_link){xstrdup(rel), xstrdup(stored), xstrdup(target), hard};
}

static size_t folder_len(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    return slash ? (size_t)(slash - rel) : 0;
}

/* A hard link stores its target as a path of the archive: it must be beside the link. */
static const char *check_hardlink(struct entry_checker *c, const char *stored,
                                  struct entry_verdict *v)
{
    const char *why = absolute_target(stored);
    if (why)
        return why;
    char target[sizeof(v->path)];
    const char *below = NULL;
    size_t folder = folder_len(v->rel);
    if (entry_path_check(stored, target, sizeof(target)) || !(below = path_below(target, c->top)) ||
        !*below || below[-1] != '/' || folder_len(below) != folder ||
        strncmp(below, v->rel, folder))
        return "does not point to a name beside it";
    hold_link(c, v->rel, stored, below, true);
    return NULL;
}

static const char *check_kind(struct entry_checker *c, enum entry_kind kind,
                              const char *link_target, struct entry_verdict *v)
{
    const char *why;
    switch (kind) {
    case ENTRY_DIR:
    case ENTRY_FILE:
        return NULL;
    case ENTRY_HARDLINK:
    case ENTRY_SYMLINK:
        v->name = v->rel;
        if (!link_target)
            return "is a link without a target";
        v->link_target = link_target;
        v->hard = kind == ENTRY_HARDLINK;
        if (v->hard)
            return check_hardlink(c, link_target, v);
        if ((why = link_name_check(link_target)))
            return why;
        hold_link(c, v->rel, link_target, link_target, false);
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
    if ((v->why = check_parents(c, v->rel)))
        return;
    bool added;
    size_t *seen = strmap_put(&c->seen, v->rel, strlen(v->rel), SEEN(kind, c->link_count), &added);
    if (!added && (kind != ENTRY_DIR || SEEN_KIND(*seen) != ENTRY_DIR)) {
        v->why = SEEN_KIND(*seen) == ENTRY_DIR ? "is also a folder of the archive"
                                               : "appears twice in the archive";
        return;
    }
    if (++c->entries > c->max_entries)
        v->too_many = true;
    else
        v->why = check_kind(c, kind, link_target, v);
    /* A link refused, or past the limit, is not held: its name must not lead to the index
     * that the next link held will take (entry_links_check would follow it there). */
    if ((v->why || v->too_many) && (kind == ENTRY_SYMLINK || kind == ENTRY_HARDLINK))
        *seen = SEEN(ENTRY_UNKNOWN, 0);
}

void entry_check_row(struct entry_checker *c, const char *path, bool file, const char *link_target,
                     struct entry_verdict *v)
{
    memset(v, 0, sizeof(*v));
    v->name = path ? path : "(no name)";
    if ((v->why = entry_path_check(path, v->path, sizeof(v->path))))
        return;
    if (strcmp(v->path, path)) {
        v->why = "is not written as cdm records a path";
        return;
    }
    if (!c->top[0]) /* the install folder stands for an archive's top folder */
        entry_check(c, "install", ENTRY_DIR, NULL, v);
    struct strbuf raw = STRBUF_INIT;
    sb_add(&raw, "install/");
    sb_add(&raw, path);
    enum entry_kind kind = link_target ? ENTRY_SYMLINK : file ? ENTRY_FILE : ENTRY_DIR;
    entry_check(c, sb_str(&raw), kind, link_target, v);
    if (v->name == raw.buf || v->name == v->path)
        v->name = v->rel ? v->rel : path;
    sb_free(&raw);
}

void entry_checker_beside(struct entry_checker *c, const char *rel)
{
    bool added;
    strmap_put(&c->seen, rel, strlen(rel), SEEN(ENTRY_FILE, 0), &added);
}

/* Follow link i through the links beside it to what it ends at. A hard link's target
 * becomes that file. */
static const char *resolve_link(struct entry_checker *c, size_t i, struct strbuf *key)
{
    struct entry_link *link = &c->links[i];
    size_t folder = folder_len(link->rel);
    const char *name = link->hard ? link->target + (folder ? folder + 1 : 0) : link->target;
    for (int hop = 0; hop < LINK_HOPS; hop++) {
        sb_reset(key);
        sb_addn(key, link->rel, folder);
        if (folder)
            sb_addc(key, '/');
        sb_add(key, name);
        size_t *seen = strmap_get(&c->seen, key->buf, key->len);
        if (!seen)
            return "points to nothing beside it in the archive";
        switch (SEEN_KIND(*seen)) {
        case ENTRY_FILE:
            if (link->hard && strcmp(link->target, key->buf)) {
                free(link->target);
                link->target = xstrdup(key->buf);
            }
            return NULL;
        case ENTRY_DIR:
            return "points to a folder";
        case ENTRY_SYMLINK:
            if (link->hard)
                return "points to a symbolic link";
            name = c->links[SEEN_INDEX(*seen)].target;
            break;
        case ENTRY_HARDLINK: /* the file a hard link shares, which is beside it too */
            name = c->links[SEEN_INDEX(*seen)].target + (folder ? folder + 1 : 0);
            break;
        default:
            return "points to nothing beside it in the archive";
        }
    }
    return "is part of a loop of links";
}

const char *entry_links_check(struct entry_checker *c, struct entry_verdict *v)
{
    struct strbuf key = STRBUF_INIT;
    const char *why = NULL;
    for (size_t i = 0; i < c->link_count && !why; i++) {
        if ((why = resolve_link(c, i, &key))) {
            memset(v, 0, sizeof(*v));
            v->why = why;
            v->name = c->links[i].rel;
            v->link_target = c->links[i].stored;
            v->hard = c->links[i].hard;
        }
    }
    sb_free(&key);
    return why;
}
