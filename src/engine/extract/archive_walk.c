/* Walking an archive's entries (archive_walk.h). */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>
#include <archive_entry.h>

#include "archive_walk.h"
#include "header.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *walk_keep_string(struct extract_result *r, const char *s)
{
    if ((r->string_count & (r->string_count + 1)) == 0) /* grow at 0, 1, 3, 7, ... */
        r->strings = xrealloc(r->strings, (r->string_count * 2 + 2) * sizeof(char *));
    char *copy = xstrdup(s);
    r->strings[r->string_count++] = copy;
    return copy;
}

void walk_add_file(struct walk *w, const char *rel, unsigned long long size, const char *sha256,
                   const char *link_target, int mode)
{
    struct extract_result *r = w->result;
    if (r->file_count == w->file_cap) {
        w->file_cap = w->file_cap ? w->file_cap * 2 : 64;
        r->files = xrealloc(r->files, w->file_cap * sizeof(*r->files));
    }
    if (sha256 && !link_target) {
        bool added;
        strmap_put(&w->file_index, rel, strlen(rel), r->file_count, &added);
    }
    struct db_file *f = &r->files[r->file_count++];
    f->path = walk_keep_string(r, rel);
    f->size = size;
    f->sha256 = sha256 ? walk_keep_string(r, sha256) : NULL;
    f->link_target = link_target ? walk_keep_string(r, link_target) : NULL;
    f->mode = mode;
}

int walk_refuse(struct walk *w, const struct entry_verdict *v)
{
    if (v->link_target)
        return cdm_error_set(w->ctx, CDM_EARCHIVE,
                             "refusing archive '%s': entry '%s' (a %slink to '%s') %s; a cuDNN "
                             "archive links a library only to a file beside it; nothing was "
                             "installed",
                             w->archive_path, v->name, v->hard ? "hard " : "", v->link_target,
                             v->why);
    return cdm_error_set(w->ctx, CDM_EARCHIVE,
                         "refusing archive '%s': entry '%s' %s; nothing was installed",
                         w->archive_path, v->name, v->why);
}

int walk_make_parents(struct walk *w, const char *rel)
{
    char *full = path_join(w->dest, rel);
    char *parent = path_dirname(full);
    int rc = fs_mkdir_p(w->ctx, parent);
    free(parent);
    free(full);
    return rc;
}

/* Every cudnn_version.h and cudnn.h of the archive is read, wherever it is: a compiler may
 * be pointed at any of them, so they must all agree. */
bool walk_is_version_header(const char *rel)
{
    const char *base = path_basename(rel);
    return !strcmp(base, "cudnn_version.h") || !strcmp(base, "cudnn.h");
}

/* The first header with the version macros gives the version; any other must agree. */
int walk_header_version(struct walk *w, const char *rel, const char *text, size_t len)
{
    int major, minor, patch;
    struct extract_result *r = w->result;
    /* only its first HEADER_KEEP bytes were kept: a cut text could hide macros past it */
    if (len >= HEADER_KEEP)
        return cdm_error_set(w->ctx, CDM_EARCHIVE,
                             "refusing archive '%s': its header '%s' is %zu KiB or more, and "
                             "cuDNN's are about 100 KiB; the archive was altered, get the "
                             "original; nothing was installed",
                             w->archive_path, rel, (size_t)HEADER_KEEP / 1024);
    if (!cudnn_header_version(text, len, &major, &minor, &patch))
        return CDM_OK;
    if (!r->header_found) {
        r->header_found = true;
        r->major = major;
        r->minor = minor;
        r->patch = patch;
        w->header_from = xstrdup(rel);
        return CDM_OK;
    }
    if (r->major == major && r->minor == minor && r->patch == patch)
        return CDM_OK;
    return cdm_error_set(w->ctx, CDM_EARCHIVE,
                         "refusing archive '%s': its headers disagree: '%s' says cuDNN "
                         "%d.%d.%d but '%s' says %d.%d.%d; the archive was altered, get the "
                         "original; nothing was installed",
                         w->archive_path, w->header_from, r->major, r->minor, r->patch, rel, major,
                         minor, patch);
}

/* The links, once every entry has been seen and every link judged: hard links share a
 * regular file written already, symbolic links name a file beside them. */
int walk_links(struct walk *w)
{
    struct entry_verdict v;
    if (entry_links_check(&w->check, &v))
        return walk_refuse(w, &v);
    int rc = CDM_OK;
    for (size_t i = 0; i < w->check.link_count && !rc; i++) {
        const struct entry_link *link = &w->check.links[i];
        char *path = path_join(w->dest, link->rel);
        if ((rc = walk_make_parents(w, link->rel))) {
        } else if (!link->hard) {
            if (!(rc = fs_symlink(w->ctx, link->target, path)))
                walk_add_file(w, link->rel, 0, NULL, link->target, -1);
        } else {
            char *from = path_join(w->dest, link->target);
            size_t *index = strmap_get(&w->file_index, link->target, strlen(link->target));
            if (!index) /* entry_links_check saw it as a file: it was written */
                rc = cdm_error_set(w->ctx, CDM_EARCHIVE,
                                   "cannot install '%s': entry '%s' is a "
                                   "hard link to a file that was not written",
                                   w->archive_path, link->rel);
            else if (!(rc = fs_hardlink(w->ctx, from, path))) {
                /* the same bytes as the file it links to */
                const struct db_file *f = &w->result->files[*index];
                char *sha = xstrdup(f->sha256);
                walk_add_file(w, link->rel, f->size, sha, NULL, f->mode);
                free(sha);
            }
            free(from);
        }
        free(path);
    }
    return rc;
}

static enum entry_kind entry_kind_of(struct archive_entry *e)
{
    if (archive_entry_hardlink(e))
        return ENTRY_HARDLINK;
    switch (archive_entry_filetype(e)) {
    case 0:
        return ENTRY_UNTYPED;
    case AE_IFDIR:
        return ENTRY_DIR;
    case AE_IFREG:
        return ENTRY_FILE;
    case AE_IFLNK:
        return ENTRY_SYMLINK;
    case AE_IFCHR:
    case AE_IFBLK:
        return ENTRY_DEVICE;
    case AE_IFIFO:
        return ENTRY_FIFO;
    case AE_IFSOCK:
        return ENTRY_SOCKET;
    default:
        return ENTRY_UNKNOWN;
    }
}

void walk_start(struct walk *w, cdm_ctx *ctx, const char *path, const char *dest,
                const struct extract_limits *limits, struct extract_result *result,
                int (*take_file)(struct walk *w, struct archive *a, struct archive_entry *e,
                                 const char *rel),
                void *arg)
{
    memset(result, 0, sizeof(*result));
    *w = (struct walk){.ctx = ctx,
                       .archive_path = path,
                       .dest = dest,
                       .limits = limits,
                       .result = result,
                       .take_file = take_file,
                       .arg = arg,
                       .check = {.max_entries = limits->max_entries}};
    const struct extract_result *beside = limits->beside;
    for (size_t i = 0; beside && i < beside->file_count; i++)
        if (beside->files[i].sha256 || beside->files[i].link_target)
            entry_checker_beside(&w->check, beside->files[i].path);
}

int walk_finish(struct walk *w)
{
    if (w->entries == 0)
        return cdm_error_set(w->ctx, CDM_EARCHIVE, "cannot install '%s': the archive is empty",
                             w->archive_path);
    int rc = walk_links(w);
    if (rc)
        return rc;
    _Static_assert(sizeof(w->result->top) == sizeof(w->check.top), "the same top folder buffer");
    memcpy(w->result->top, w->check.top, sizeof(w->result->top));
    return CDM_OK;
}

/* An entry's name as the checks see it under a selection (struct entry_select): the path
 * below the selected folder, put under that folder's own name as the top (written into
 * out); NULL for an entry passed over. A name that cannot be normalised is kept as it is,
 * for the checks to refuse. */
static const char *select_name(const struct entry_select *sel, const char *raw, bool link,
                               char *out, size_t size)
{
    char path[4096], mapped[4096];
    if (sel->map && raw && !raw[strspn(raw, "./")])
        return NULL; /* "./", the root of a Debian package's data.tar */
    if (!raw || entry_path_check(raw, path, sizeof(path)))
        return raw;
    if (sel->map) {
        const char *to = sel->map(path, link, mapped, sizeof(mapped));
        if (!to)
            return NULL;
        return snprintf(out, size, "package/%s", to) < (int)size ? out : raw;
    }
    bool root = !*sel->below;
    if (!root && !path_within(path, sel->below))
        return NULL;
    const char *rest = root ? path : path + strlen(sel->below);
    rest += *rest == '/';
    const char *base = path_basename(path);
    for (const char *const *skip = sel->skip_names; skip && *skip; skip++)
        if (*rest && !strcmp(base, *skip))
            return NULL;
    bool taken = !sel->only || !*rest;
    size_t first = strcspn(rest, "/");
    for (const char *const *only = sel->only; only && *only && !taken; only++)
        taken = strlen(*only) == first && !strncmp(rest, *only, first);
    if (!taken)
        return NULL;
    /* the selected folder's name stands for the top folder ("package" for the root) */
    const char *top = root ? "package" : path_basename(sel->below);
    if (snprintf(out, size, "%s%s%s", top, *rest ? "/" : "", rest) >= (int)size)
        return raw;
    return out;
}

int walk_entry(struct walk *w, struct archive *a, struct archive_entry *e)
{
    w->entries++;
    const char *raw = archive_entry_pathname_utf8(e);
    if (!raw)
        raw = archive_entry_pathname(e);
    enum entry_kind kind = entry_kind_of(e);
    const char *target = NULL;
    if (kind == ENTRY_HARDLINK) {
        target = archive_entry_hardlink(e);
    } else if (kind == ENTRY_SYMLINK) {
        target = archive_entry_symlink_utf8(e);
        if (!target)
            target = archive_entry_symlink(e);
    }
    const struct entry_select *sel = w->limits->select;
    char selected[4096], selected_target[4096];
    if (sel && !(raw = select_name(sel, raw, kind == ENTRY_SYMLINK, selected, sizeof(selected))))
        return CDM_OK;
    /* a hard link names a path of the archive: it moves with the selection (one outside
     * it stays as it is, and is refused as not below the top folder) */
    if (sel && kind == ENTRY_HARDLINK && target) {
        const char *moved =
            select_name(sel, target, false, selected_target, sizeof(selected_target));
        if (moved)
            target = moved;
    }
    struct entry_verdict v;
    entry_check(&w->check, raw, kind, target, &v);
    if (v.too_many)
        return cdm_error_set(w->ctx, CDM_EARCHIVE,
                             "refusing archive '%s': more than %llu entries "
                             "([install] max_entries); nothing was installed",
                             w->archive_path, w->limits->max_entries);
    if (v.why)
        return walk_refuse(w, &v);
    if (!v.rel)
        return CDM_OK; /* the top folder, which is not part of the version folder */
    const char *rel = v.rel;
    if (kind == ENTRY_DIR) {
        char *full = path_join(w->dest, rel);
        int rc = fs_mkdir_p(w->ctx, full);
        free(full);
        return rc;
    }
    if (kind != ENTRY_HARDLINK)
        layout_note(&w->result->scan, rel);
    if (kind == ENTRY_HARDLINK || kind == ENTRY_SYMLINK)
        return CDM_OK; /* held by the checker, made by write_links */
    int rc = walk_make_parents(w, rel);
    if (rc)
        return rc;
    return w->take_file(w, a, e, rel);
}

void walk_free(struct walk *w)
{
    entry_checker_free(&w->check);
    strmap_free(&w->file_index);
    free(w->header_from);
}

int walk_entry_text(cdm_ctx *ctx, struct archive *a, const char *what, const char *file,
                    const char *name, size_t max, struct strbuf *into)
{
    char buf[16384];
    la_ssize_t got;
    sb_reset(into);
    while ((got = archive_read_data(a, buf, sizeof(buf))) > 0) {
        if (into->len + (size_t)got > max)
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "refusing %s '%s': its '%s' is larger than %zu KiB, and NVIDIA's "
                                 "are far smaller; get the %s again",
                                 what, file, name, max >> 10, what);
        sb_addn(into, buf, (size_t)got);
    }
    if (got < 0)
        return cdm_error_set(ctx, CDM_EARCHIVE, "cannot read '%s' in %s '%s': %s; get it again",
                             name, what, file, archive_error_string(a));
    return CDM_OK;
}

/* A package read through the file system's reader (UTF-8 paths on Windows too). */
struct walk_file {
    cdm_ctx *ctx;
    struct fs_reader *r;
    unsigned char buf[65536];
};

static la_ssize_t walk_file_read(struct archive *a, void *arg, const void **buf)
{
    (void)a;
    struct walk_file *s = arg;
    *buf = s->buf;
    long long got = fs_reader_read(s->ctx, s->r, s->buf, sizeof(s->buf));
    return got < 0 ? -1 : (la_ssize_t)got;
}

int walk_open_file(cdm_ctx *ctx, struct archive *a, const char *path, struct walk_file **out)
{
    struct walk_file *s = xcalloc(1, sizeof(*s));
    uint64_t size;
    s->ctx = ctx;
    int rc = fs_reader_open(ctx, path, &s->r, &size);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    if (archive_read_open(a, s, NULL, walk_file_read, NULL) != ARCHIVE_OK)
        return CDM_EARCHIVE; /* the caller names the package and what it should have been */
    return CDM_OK;
}

void walk_close_file(struct walk_file *s)
{
    if (!s)
        return;
    fs_reader_close(s->r);
    free(s);
}

int walk_entry_copy(cdm_ctx *ctx, struct archive *a, const char *file, const char *name,
                    const char *to)
{
    struct fs_file *w = NULL;
    int rc = fs_file_create(ctx, to, false, &w);
    char buf[65536];
    la_ssize_t got = 0;
    while (!rc && (got = archive_read_data(a, buf, sizeof(buf))) > 0)
        rc = fs_file_write(ctx, w, buf, (size_t)got);
    if (!rc && got < 0)
        rc = cdm_error_set(ctx, CDM_EARCHIVE, "cannot read '%s' in '%s': %s", name, file,
                           archive_error_string(a));
    if (w && rc)
        fs_file_abort(w);
    else if (w)
        rc = fs_file_close(ctx, w);
    return rc;
}
