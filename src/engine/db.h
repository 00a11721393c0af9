/* The SQLite index of the store: installs, their files, project generations. */
#ifndef CDM_DB_H
#define CDM_DB_H

#include "internal.h"

int db_open(cdm_ctx *ctx, const char *path);
void db_close(cdm_ctx *ctx);

int db_begin(cdm_ctx *ctx);
int db_commit(cdm_ctx *ctx);
void db_rollback(cdm_ctx *ctx);

/* Set the context's error from SQLite's ("index 'PATH': WHAT: sqlite's message"). */
int db_fail(cdm_ctx *ctx, const char *what);
/* Prepare a statement; on failure the error is set. */
int db_prepare(cdm_ctx *ctx, const char *sql, sqlite3_stmt **st);
/* A text column copied into out ("" for NULL). */
void db_column_text(sqlite3_stmt *st, int col, char *out, size_t size);

/* One statement without results (for small fixed SQL). */
int db_exec(cdm_ctx *ctx, const char *sql);

/* An install's state: "ok", or "pending" while its folder is being moved into place. */
int db_install_get(cdm_ctx *ctx, const char *id, struct cdm_install_info *out, char state[16]);
/* Insert or replace the install's record (and drop its old file list). */
int db_install_put(cdm_ctx *ctx, const struct cdm_install_info *in, const char *state);
int db_install_set_state(cdm_ctx *ctx, const char *id, const char *state);
int db_install_delete(cdm_ctx *ctx, const char *id);
/* All installs in state ok, ordered by version. */
int db_install_list(cdm_ctx *ctx, struct cdm_install_info **out, size_t *count);
/* Ids of installs in state pending (NULL-terminated, strv_free). */
int db_install_pending(cdm_ctx *ctx, char ***ids);

struct db_file {
    const char *path; /* relative to the install folder, '/' separated */
    unsigned long long size;
    const char *sha256;      /* NULL for links and folders */
    const char *link_target; /* NULL unless a symbolic link */
};
/* Add files to an install inside a transaction; reuses one prepared statement. */
int db_files_add(cdm_ctx *ctx, const char *install_id, const struct db_file *files, size_t n);

/* Call fn for every file recorded for install_id, in path order. */
typedef int (*db_file_fn)(void *arg, const struct db_file *file);
int db_files_each(cdm_ctx *ctx, const char *install_id, db_file_fn fn, void *arg);

/* Projects whose newest generation links to install_id. */
int db_projects_using(cdm_ctx *ctx, const char *install_id, char ***projects);

#endif
