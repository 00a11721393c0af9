/* A package's own list of its files and their hashes, and the check against it (listed.h). */
#include "listed.h"

#include <stdlib.h>
#include <string.h>

bool listed_add(struct listed *l, const char *path, const char *sha256, unsigned long long size,
                size_t *at)
{
    bool added;
    size_t *index = strmap_put(&l->by_path, path, strlen(path), l->count, &added);
    if (!added) {
        *at = *index;
        return false;
    }
    l->rows = xrealloc(l->rows, (l->count + 1) * sizeof(*l->rows));
    struct listed_row *row = &l->rows[l->count++];
    row->path = xstrdup(path);
    row->size = size;
    row->link = !sha256;
    copy_text(row->sha256, sizeof(row->sha256), sha256 ? sha256 : "");
    return true;
}

const struct listed_row *listed_get(const struct listed *l, const char *path)
{
    size_t *at = strmap_get(&l->by_path, path, strlen(path));
    return at ? &l->rows[*at] : NULL;
}

void listed_free(struct listed *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->rows[i].path);
    free(l->rows);
    strmap_free(&l->by_path);
    memset(l, 0, sizeof(*l));
}

/* One file against its row. */
static int check_file(cdm_ctx *ctx, const struct listed_check *how, const struct listed_row *row,
                      const char *name, const struct db_file *f)
{
    if (!row)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing %s '%s': '%s' is not in its %s; the %s was altered, get "
                             "it again; nothing was installed",
                             how->noun, how->file, name, how->list, how->noun);
    if (f->link_target && !how->links)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing %s '%s': '%s' is a link, which no %s holds; get it again; "
                             "nothing was installed",
                             how->noun, how->file, name, how->noun);
    if (row->link != (f->link_target != NULL) && how->links)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing %s '%s': '%s' is a %s but its %s says %s; nothing was "
                             "installed",
                             how->noun, how->file, name, f->link_target ? "link" : "file",
                             how->list, row->link ? "a link" : "a file");
    if (row->link || (!strcmp(row->sha256, f->sha256) && row->size == f->size))
        return CDM_OK;
    if (how->installed)
        return cdm_error_set(ctx, CDM_ECHECKSUM,
                             "'%s/%s' was changed since it was installed (sha256 %.12s..., its "
                             "%s says %.12s...); nothing was installed: reinstall the %s",
                             how->file, f->path, f->sha256, how->list, row->sha256, how->noun);
    return cdm_error_set(ctx, CDM_ECHECKSUM,
                         "refusing %s '%s': '%s' does not match its %s (%llu bytes, sha256 "
                         "%.12s...; %s says %llu bytes, %.12s...); the %s was altered or "
                         "damaged, get it again; nothing was installed",
                         how->noun, how->file, name, how->list, (unsigned long long)f->size,
                         f->sha256, how->list, row->size, row->sha256, how->noun);
}

int listed_check(cdm_ctx *ctx, const struct listed *l, const struct listed_check *how,
                 const struct db_file *files, size_t count)
{
    bool *seen = xcalloc(l->count + 1, sizeof(*seen));
    int rc = CDM_OK;
    for (size_t i = 0; i < count && !rc; i++) {
        const struct db_file *f = &files[i];
        if (!f->sha256 && !f->link_target)
            continue; /* a folder has no row */
        char *name = xasprintf("%s%s", how->prefix, f->path);
        size_t *at = strmap_get(&l->by_path, name, strlen(name));
        if (!(rc = check_file(ctx, how, at ? &l->rows[*at] : NULL, name, f)))
            seen[*at] = true;
        free(name);
    }
    size_t prefix = strlen(how->prefix);
    for (size_t i = 0; i < l->count && !rc; i++) {
        const char *row = l->rows[i].path;
        bool expected = how->expected ? how->expected(row, how->arg)
                                      : !strncmp(row, how->prefix, prefix) && row[prefix];
        if (seen[i] || !expected)
            continue;
        rc = how->installed
                 ? cdm_error_set(ctx, CDM_EARCHIVE,
                                 "'%s' lacks '%s', which its %s lists; nothing was installed: "
                                 "reinstall the %s",
                                 how->file, row + prefix, how->list, how->noun)
                 : cdm_error_set(ctx, CDM_EARCHIVE,
                                 "refusing %s '%s': its %s lists '%s', which the %s does not "
                                 "hold; get it again; nothing was installed",
                                 how->noun, how->file, how->list, row, how->noun);
    }
    free(seen);
    return rc;
}
