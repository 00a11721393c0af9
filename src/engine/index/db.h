/*
 * cdm's two SQLite files and all of cdm's SQL: the store's index (ctx->db: installs and
 * their files, deploys, beside the store) and the user's state (ctx->state: each
 * project's link history, attachments; under the user's data folder). db.c opens and
 * migrates both, db_state.c opens the state and moves history an older index kept into
 * it, db_install.c keeps the installs, db_files.c their files, db_generation.c each
 * project's link history, db_attach.c the attachments (db_attach.h), db_deploy.c the
 * deploys and the files they replaced (db_deploy.h). Functions that set no message on
 * CDM_ENOTFOUND say so: the caller decides what absence means.
 */
#ifndef CDM_DB_H
#define CDM_DB_H

#include "internal.h"

/* ---- db.c: the connection ---------------------------------------------------------- */

enum db_mode {
    DB_READ_WRITE, /* made when missing */
    DB_READ_ONLY,  /* SQLite's mode=ro: a store this user may not write */
    DB_IMMUTABLE,  /* mode=ro&immutable=1: nobody writes it while cdm runs ([store] shared) */
};
/* Open the store's index at path and migrate it (a read-only one must need no migration). */
int db_open(cdm_ctx *ctx, const char *path, enum db_mode mode);
/* Open the state database at path (made when missing) and migrate it. */
int db_state_connect(cdm_ctx *ctx, const char *path);
/* Was the index opened read-only? */
bool db_read_only(cdm_ctx *ctx);
/* Is the index open on its file, for writing (not in memory, not read-only)? */
bool db_on_file(cdm_ctx *ctx);
/* db_state.c. The index and the state for reading: a store or a state not made yet reads
 * as empty and stays unmade; history an older index kept moves to the state first. */
int db_open_read(cdm_ctx *ctx);
/* Open the state for writing (made when missing; the caller holds the state's lock) and
 * move history an older index kept into it. */
int db_state_open(cdm_ctx *ctx);
void db_close(cdm_ctx *ctx);

int db_begin(cdm_ctx *ctx);
int db_commit(cdm_ctx *ctx);
void db_rollback(cdm_ctx *ctx);

/* SQLite's own integrity check: CDM_OK and *problems "" when it passes; else the
 * problems it names ("; " between them). */
int db_integrity(cdm_ctx *ctx, struct strbuf *problems);

/* For the db*.c files. Set the context's error from SQLite's ("index 'PATH': WHAT:
 * sqlite's message"). */
int db_fail(cdm_ctx *ctx, const char *what);
/* The same for the connection db ("state 'PATH': ..." for the state). */
int db_fail_on(cdm_ctx *ctx, sqlite3 *db, const char *what);
/* Run SQL without results on db. */
int db_exec_on(cdm_ctx *ctx, sqlite3 *db, const char *sql);
/* Prepare a statement on the index (db_prepare) or on db; on failure the error is set. */
int db_prepare(cdm_ctx *ctx, const char *sql, sqlite3_stmt **st);
int db_prepare_on(cdm_ctx *ctx, sqlite3 *db, const char *sql, sqlite3_stmt **st);
/* The same with ?1 bound to key (not copied: it must outlive the statement). */
int db_prepare_key(cdm_ctx *ctx, const char *sql, const char *key, sqlite3_stmt **st);
int db_prepare_key_on(cdm_ctx *ctx, sqlite3 *db, const char *sql, const char *key,
                      sqlite3_stmt **st);
/* Step a statement without results to its end and finalize it; what names it in the
 * error. */
int db_run(cdm_ctx *ctx, sqlite3_stmt *st, const char *what);
/* Bind text, or NULL for NULL or "". */
void db_bind_text_or_null(sqlite3_stmt *st, int col, const char *text);
/* A text column copied into out ("" for NULL); false when it did not fit, which a caller
 * must not pass over: a path cut short names another file. */
bool db_column_text(sqlite3_stmt *st, int col, char *out, size_t size) CDM_MUST_CHECK;
/* The error for a record with a text too long for its field: what, in the index or the
 * state db (ctx's connection of st). */
int db_too_long(cdm_ctx *ctx, sqlite3_stmt *st, const char *what);
/* The first column of every row, NULL-terminated (strv_free); finalizes st. */
int db_collect_strings(cdm_ctx *ctx, sqlite3_stmt *st, char ***out);
/* Reads the current row of st into elem, one element of the array db_collect builds. */
typedef int (*db_row_fn)(cdm_ctx *ctx, sqlite3_stmt *st, void *elem);
/* Every row of st read with read into a new array of *count elements of size bytes (free
 * it); finalizes st. what says, in an error, what was being read. */
int db_collect(cdm_ctx *ctx, sqlite3_stmt *st, size_t size, db_row_fn read, const char *what,
               void **out, size_t *count);

/* The first column of the one row sql (on db) selects, as a truth value. */
int db_exists(cdm_ctx *ctx, sqlite3 *db, const char *sql, bool *yes);
/* Is work of one of protocols (recover_protocol bits: an install, a deploy, a link change,
 * an attach or a detach) recorded as pending (under way, or interrupted)? */
int db_work_pending(cdm_ctx *ctx, unsigned protocols, bool *pending);

/* ---- db_install.c: installs ------------------------------------------------------- */

/* An install's record, in any state: ->state is CDM_INSTALL_OK for a record marked "ok",
 * else CDM_INSTALL_INSTALLING (its folder is being moved into place); the disk tells the
 * rest (store_install_state). CDM_ENOTFOUND without a message. */
int db_install_get(cdm_ctx *ctx, const char *id, struct cdm_install_info *out);
/* Insert or replace the install's record (and drop its old file list). */
int db_install_put(cdm_ctx *ctx, const struct cdm_install_info *in, const char *state);
int db_install_set_state(cdm_ctx *ctx, const char *id, const char *state);
int db_install_delete(cdm_ctx *ctx, const char *id);
/* Every install in any state, as db_install_get reads one, ordered by version. */
int db_install_list(cdm_ctx *ctx, struct cdm_install_info **out, size_t *count);
/* Ids of installs in state pending (NULL-terminated, strv_free). */
int db_install_pending(cdm_ctx *ctx, char ***ids);

/* ---- db_files.c: the files of each install ------------------------------------------ */

struct db_file {
    const char *path; /* relative to the install folder, '/' separated */
    unsigned long long size;
    const char *sha256;      /* NULL for links and folders */
    const char *link_target; /* NULL unless a symbolic link */
    int mode;                /* permission bits as installed (07777); -1: not recorded */
};
/* Add files to an install inside a transaction; reuses one prepared statement. */
int db_files_add(cdm_ctx *ctx, const char *install_id, const struct db_file *files, size_t n);

/* Call fn for every file recorded for install_id, in path order. */
typedef int (*db_file_fn)(void *arg, const struct db_file *file);
int db_files_each(cdm_ctx *ctx, const char *install_id, db_file_fn fn, void *arg);
/* A regular file of another install (not exclude_id, settled) recorded with this SHA-256,
 * size and mode (-1: none recorded): the one an identical new file can share. CDM_ENOTFOUND,
 * without a message, when there is none. */
struct db_file_ref {
    char install_id[64];
    char path[4096];
};
int db_file_alike(cdm_ctx *ctx, const char *sha256, unsigned long long size, int mode,
                  const char *exclude_id, struct db_file_ref *out);
/* Every such file (of any state), each given to fn until it returns nonzero. */
typedef int (*db_file_ref_fn)(void *arg, const struct db_file_ref *ref);
int db_files_alike_each(cdm_ctx *ctx, const char *sha256, unsigned long long size, int mode,
                        const char *exclude_id, db_file_ref_fn fn, void *arg);

/* ---- db_generation.c: each project's link history ----------------------------------- */

/* A generation is written "pending" before its link changes and settled "ok" after (or
 * deleted when the change did not happen); only "ok" ones are history. */

/* One generation of project: the given number, or the newest "ok" one when number is 0.
 * CDM_ENOTFOUND without a message. */
int db_generation_get(cdm_ctx *ctx, const char *project, long long number,
                      struct cdm_generation *out);
/* The newest generation in any state (a pending one included). CDM_ENOTFOUND without a
 * message. */
int db_generation_newest(cdm_ctx *ctx, const char *project, struct cdm_generation *out);
/* The "ok" generations of project, oldest first, the last one marked current. *count is
 * 0 when there are none. */
int db_generation_list(cdm_ctx *ctx, const char *project, struct cdm_generation **out,
                       size_t *count);
/* Record a generation numbered one above the project's newest. install_id NULL or "" for
 * none; *number (may be NULL) gets its number. */
int db_generation_add(cdm_ctx *ctx, const char *project, const char *install_id, const char *action,
                      const char *link_name, const char *state, long long *number);
/* The toolkit and view a link change records; name NULL when no view could be made (the
 * link then leads to the install, as without a toolkit). */
struct db_view_ref {
    const char *toolkit_version, *toolkit, *name;
};
/* Record them with generation number of project, before its link is switched. */
int db_generation_set_view(cdm_ctx *ctx, const char *project, long long number,
                           const struct db_view_ref *view);
/* The toolkit folder recorded with view name; CDM_ENOTFOUND (no message) when none is. */
int db_view_toolkit(cdm_ctx *ctx, const char *name, char **toolkit);
/* The views a project's current generation, or a pending one, points to (strv_free). */
int db_views_in_use(cdm_ctx *ctx, char ***names);
/* Record why pending generation number has no link: none can be made in the project's
 * folder (platform/link.h's link_set_or_none); its install is used without one. */
int db_generation_set_no_link(cdm_ctx *ctx, const char *project, long long number, const char *why);
/* Mark a pending generation "ok", or delete it (state NULL). */
int db_generation_settle(cdm_ctx *ctx, const char *project, long long number, const char *state);

/* A generation with its project, for the walks below. */
struct db_generation_ref {
    char *project;
    long long number;
    char *install_id; /* NULL when it links nothing */
    char *link_name;
    char *view;   /* NULL when the link leads to the install itself */
    bool no_link; /* the project has no link (db_generation_set_no_link) */
};
/* Call fn for each generation of a kind, the whole list read first, so fn may change the
 * table; stops at the first failure fn returns. */
typedef int (*db_generation_fn)(cdm_ctx *ctx, const struct db_generation_ref *g, void *arg);
/* The pending generations, by project and number. */
int db_generation_each_pending(cdm_ctx *ctx, db_generation_fn fn, void *arg);
/* The current ("ok", newest) generation of every project whose link names an install. */
int db_generation_each_current_link(cdm_ctx *ctx, db_generation_fn fn, void *arg);
/* Projects whose current generation links to install_id (NULL-terminated, strv_free). */
int db_projects_using(cdm_ctx *ctx, const char *install_id, char ***projects);
/* Every project this store's history knows, linked now or not (strv_free). */
int db_projects_known(cdm_ctx *ctx, char ***projects);
/* Every project's current install, sorted by install id, then project. */
int db_usage_list(cdm_ctx *ctx, struct cdm_usage **out, size_t *count);

#endif
