/* The installs table: one row per install, with its state while it is moved into place. */
#include "db.h"
#include "db_license.h"
#include "base/name.h"
#include "store_paths.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

#define INSTALL_COLUMNS                                                                            \
    "id, version, cuda, platform, layout, bin_dir, lib_dir, include_dir, archive_name, "           \
    "archive_size, sha256, official, installed_at, size, state"
/* The columns read: the kind of source beside them (an older cdm's install has none). */
#define INSTALL_SELECT                                                                             \
    INSTALL_COLUMNS ", (SELECT kind FROM install_sources s WHERE s.id = installs.id)"

/* A folder of an install named relative to it (bin/x64): no absolute path, no '..'. "" is
 * the install's own folder. */
static bool inside_install(const char *rel)
{
    if (rel[0] == '/' || rel[0] == '\\' || (rel[0] && rel[1] == ':'))
        return false;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += n + (p[n] != '\0');
    }
    return true;
}

/* The folders inside the install an index names are kept inside it: one that leaves it (an
 * index edited by hand, or another writer's, as `install --from-store` reads) becomes the
 * install's own folder (""), which every use of it then stays within; the files found on
 * disk decide where an install's folders are whenever cdm makes one. */
static void confine_folders(struct cdm_install_info *in)
{
    char *const rel[] = {in->bin_dir, in->lib_dir, in->include_dir};
    for (size_t i = 0; i < CDM_ARRAY_LEN(rel); i++)
        if (!inside_install(rel[i]))
            rel[i][0] = '\0';
}

/* The row into *in; its folder is derived from the id (store_paths.c). A text too long
 * for its field was not written by cdm: the index is damaged. */
static int read_install(cdm_ctx *ctx, sqlite3_stmt *st, void *elem)
{
    struct cdm_install_info *in = elem;
    memset(in, 0, sizeof(*in));
    bool fits = db_column_text(st, 0, in->id, sizeof(in->id));
    fits &= db_column_text(st, 1, in->version, sizeof(in->version));
    in->cuda = sqlite3_column_int(st, 2);
    fits &= db_column_text(st, 3, in->platform, sizeof(in->platform));
    fits &= db_column_text(st, 4, in->layout, sizeof(in->layout));
    fits &= db_column_text(st, 5, in->bin_dir, sizeof(in->bin_dir));
    fits &= db_column_text(st, 6, in->lib_dir, sizeof(in->lib_dir));
    fits &= db_column_text(st, 7, in->include_dir, sizeof(in->include_dir));
    fits &= db_column_text(st, 8, in->archive_name, sizeof(in->archive_name));
    in->archive_size = (uint64_t)sqlite3_column_int64(st, 9);
    fits &= db_column_text(st, 10, in->sha256, sizeof(in->sha256));
    in->official = sqlite3_column_int(st, 11) != 0;
    in->installed_at = sqlite3_column_int64(st, 12);
    in->size = (uint64_t)sqlite3_column_int64(st, 13);
    fits &= db_column_text(st, 15, in->source, sizeof(in->source));
    if (!in->source[0])
        COPY_STR_ARRAY(in->source, "archive");
    /* The record alone knows "pending": the disk tells the rest (store_install_state). */
    const unsigned char *state = sqlite3_column_text(st, 14);
    in->state =
        state && !strcmp((const char *)state, "ok") ? CDM_INSTALL_OK : CDM_INSTALL_INSTALLING;
    confine_folders(in);
    /* the id names the install's folder in the store: one that is no plain name would lead
     * cdm's writes and deletes elsewhere */
    if (fits && name_component_problem(in->id))
        return cdm_error_set(ctx, CDM_EDB,
                             "index '%s': it records an install '%s', which is no plain name "
                             "and would leave its place in the store; cdm did not write that "
                             "(the index was edited or damaged): restore the index, or remove "
                             "the store with 'cdm store delete'",
                             sqlite3_db_filename(ctx->db, "main"), in->id);
    char *path = store_install_path(ctx, in->id);
    fits &= copy_str(in->path, sizeof(in->path), path);
    free(path);
    if (!fits)
        return cdm_error_set(ctx, CDM_EDB,
                             "index '%s': the record of install '%s' has a value too long for "
                             "cdm, or the store's path is too long; check it with 'cdm doctor'",
                             sqlite3_db_filename(ctx->db, "main"), in->id);
    return CDM_OK;
}

int db_install_get(cdm_ctx *ctx, const char *id, struct cdm_install_info *out)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx, "SELECT " INSTALL_SELECT " FROM installs WHERE id = ?1", id, &st);
    if (rc)
        return rc;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        rc = read_install(ctx, st, out);
    else if (step == SQLITE_DONE)
        rc = CDM_ENOTFOUND;
    else
        rc = db_fail(ctx, "cannot read an install");
    sqlite3_finalize(st);
    return rc;
}

int db_install_put(cdm_ctx *ctx, const struct cdm_install_info *in, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_install_delete(ctx, in->id);
    if (rc)
        return rc;
    rc = db_prepare(ctx,
                    "INSERT INTO installs (" INSTALL_COLUMNS ") VALUES "
                    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                    &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, in->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, in->version, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, in->cuda);
    sqlite3_bind_text(st, 4, in->platform, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, in->layout, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, in->bin_dir, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, in->lib_dir, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, in->include_dir, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, in->archive_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)in->archive_size);
    sqlite3_bind_text(st, 11, in->sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 12, in->official);
    sqlite3_bind_int64(st, 13, in->installed_at);
    sqlite3_bind_int64(st, 14, (sqlite3_int64)in->size);
    sqlite3_bind_text(st, 15, state, -1, SQLITE_STATIC);
    if ((rc = db_run(ctx, st, "cannot record an install")) ||
        (rc = db_prepare(ctx, "INSERT OR REPLACE INTO install_sources (id, kind) VALUES (?1, ?2)",
                         &st)))
        return rc;
    sqlite3_bind_text(st, 1, in->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, in->source[0] ? in->source : "archive", -1, SQLITE_STATIC);
    return db_run(ctx, st, "cannot record an install's source");
}

int db_install_set_state(cdm_ctx *ctx, const char *id, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx, "UPDATE installs SET state = ?2 WHERE id = ?1", id, &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
    return db_run(ctx, st, "cannot update an install");
}

int db_install_delete(cdm_ctx *ctx, const char *id)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key(ctx, "DELETE FROM install_sources WHERE id = ?1", id, &st);
    if (rc || (rc = db_run(ctx, st, "cannot delete an install's source")) ||
        (rc = db_license_drop(ctx, id)) ||
        (rc = db_prepare_key(ctx, "DELETE FROM installs WHERE id = ?1", id, &st)))
        return rc;
    return db_run(ctx, st, "cannot delete an install");
}

/* An install's place in the list: its version parsed once, not at every comparison, and
 * small enough to sort (an install's record holds whole paths). */
struct install_key {
    struct version version;
    int cuda;
    size_t index;
};

static int compare_keys(const void *a, const void *b)
{
    const struct install_key *x = a, *y = b;
    int c = version_compare(&x->version, &y->version);
    return c ? c : (x->cuda > y->cuda) - (x->cuda < y->cuda);
}

/* Oldest version first, then by CUDA variant. */
static void sort_installs(struct cdm_install_info **v, size_t n)
{
    struct install_key *keys = xmalloc((n ? n : 1) * sizeof(*keys));
    for (size_t i = 0; i < n; i++) {
        keys[i] = (struct install_key){.cuda = (*v)[i].cuda, .index = i};
        version_parse((*v)[i].version, &keys[i].version);
    }
    qsort(keys, n, sizeof(*keys), compare_keys);
    struct cdm_install_info *sorted = xmalloc((n ? n : 1) * sizeof(*sorted));
    for (size_t i = 0; i < n; i++)
        sorted[i] = (*v)[keys[i].index];
    free(keys);
    free(*v);
    *v = sorted;
}

int db_install_list(cdm_ctx *ctx, struct cdm_install_info **out, size_t *count)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "SELECT " INSTALL_SELECT " FROM installs", &st);
    if (rc)
        return rc;
    struct cdm_install_info *v = NULL;
    size_t n = 0;
    rc = db_collect(ctx, st, sizeof(*v), read_install, "cannot list installs", (void **)&v, &n);
    if (rc)
        return rc;
    sort_installs(&v, n);
    *out = v;
    *count = n;
    return CDM_OK;
}

int db_install_pending(cdm_ctx *ctx, char ***ids)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "SELECT id FROM installs WHERE state <> 'ok' ORDER BY id", &st);
    return rc ? rc : db_collect_strings(ctx, st, ids);
}
