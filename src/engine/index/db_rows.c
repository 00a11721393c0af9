/* Reading rows (db.h): text columns in and out of a statement (NULL for "", a value that does
 * not fit its field refused, never cut), and a query's rows collected. */
#include "db.h"

#include <stdlib.h>

void db_bind_text_or_null(sqlite3_stmt *st, int col, const char *text)
{
    if (text && *text)
        sqlite3_bind_text(st, col, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, col);
}

bool db_column_text(sqlite3_stmt *st, int col, char *out, size_t size)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return copy_str(out, size, s ? (const char *)s : "");
}

int db_too_long(cdm_ctx *ctx, sqlite3_stmt *st, const char *what)
{
    return cdm_error_set(ctx, CDM_EDB,
                         "'%s': the record of %s has a value too long for cdm (a path past its "
                         "limit); cdm did not write it: check the file with 'cdm doctor'",
                         sqlite3_db_filename(sqlite3_db_handle(st), "main"), what);
}

int db_collect_strings(cdm_ctx *ctx, sqlite3_stmt *st, char ***out)
{
    size_t n = 0, cap = 4;
    char **v = xmalloc(cap * sizeof(*v));
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n + 2 > cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        const unsigned char *s = sqlite3_column_text(st, 0);
        v[n++] = xstrdup(s ? (const char *)s : "");
    }
    v[n] = NULL;
    int rc = CDM_OK;
    if (step != SQLITE_DONE) {
        strv_free(v);
        rc = db_fail_on(ctx, sqlite3_db_handle(st), "cannot read it");
    } else {
        *out = v;
    }
    sqlite3_finalize(st);
    return rc;
}

int db_collect(cdm_ctx *ctx, sqlite3_stmt *st, size_t size, db_row_fn read, const char *what,
               void **out, size_t *count)
{
    size_t n = 0, cap = 8;
    unsigned char *v = xmalloc(cap * size);
    int rc = CDM_OK, step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap)
            v = xrealloc(v, (cap *= 2) * size);
        rc = read(ctx, st, v + n++ * size);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail_on(ctx, sqlite3_db_handle(st), what);
    sqlite3_finalize(st);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *count = n;
    return CDM_OK;
}

int db_integrity(cdm_ctx *ctx, struct strbuf *problems)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx, "PRAGMA integrity_check(5)", &st);
    if (rc)
        return rc;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *row = (const char *)sqlite3_column_text(st, 0);
        if (row && strcmp(row, "ok"))
            sb_addf(problems, "%s%s", n++ ? "; " : "", row);
    }
    sqlite3_finalize(st);
    return CDM_OK;
}
