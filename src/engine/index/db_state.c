/*
 * Opening the user's state, and moving into it the history an index written before the
 * state had its own file kept (its generations and attachments tables).
 *
 * The move is crash-safe in three steps, each one SQLite transaction:
 *   1. into the state: the index's rows, and a row in `moving` naming the index;
 *   2. in the index: its rows deleted;
 *   3. in the state: the `moving` row deleted.
 * A kill after 1 leaves the `moving` row, so the next open copies nothing again and
 * finishes 2 and 3; a kill before 1 committed leaves nothing in the state. Generation
 * numbers stay as they were, unless the state has history for the same project already
 * (a second old store moved in): then the moved ones follow the state's.
 */
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The index's file, "" when it is in memory (no store yet). */
static const char *index_file(cdm_ctx *ctx)
{
    const char *name = ctx->db ? sqlite3_db_filename(ctx->db, "main") : NULL;
    return name ? name : "";
}

/* Does the index, open for writing, still keep history of its own? */
static int index_has_history(cdm_ctx *ctx, bool *has)
{
    *has = false;
    if (!*index_file(ctx) || db_read_only(ctx))
        return CDM_OK; /* a store made since has none; a read-only one keeps its own */
    return db_exists(ctx, ctx->db,
                     "SELECT EXISTS (SELECT 1 FROM generations) OR "
                     "EXISTS (SELECT 1 FROM attachments)",
                     has);
}

/* Run sql on the state with ?1 the index's file, ?2 the store's root, ?3 the time. */
static int run_moving(cdm_ctx *ctx, const char *sql, const char *what)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state, sql, index_file(ctx), &st);
    if (rc)
        return rc;
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_text(st, 2, ctx->root, -1, SQLITE_STATIC);
    if (sqlite3_bind_parameter_count(st) >= 3)
        sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
    return db_run(ctx, st, what);
}

static int copy_history(cdm_ctx *ctx)
{
    static const char *const steps[] = {
        "INSERT INTO main.generations (project, generation, install_id, action, link_name, "
        "time, state, store) SELECT g.project, g.generation + COALESCE((SELECT "
        "MAX(s.generation) FROM main.generations s WHERE s.project = g.project), 0), "
        "g.install_id, g.action, g.link_name, g.time, g.state, ?2 FROM moved.generations g "
        "WHERE NOT EXISTS (SELECT 1 FROM main.moving WHERE source = ?1) "
        "ORDER BY g.project, g.generation",
        "INSERT INTO main.attachments (id, venv, folder, project, target, original, "
        "install_id, wheel, time, state) SELECT a.id + (SELECT COALESCE(MAX(id), 0) FROM "
        "main.attachments), a.venv, a.folder, a.project, a.target, a.original, a.install_id, "
        "a.wheel, a.time, a.state FROM moved.attachments a WHERE NOT EXISTS (SELECT 1 FROM "
        "main.moving WHERE source = ?1) ORDER BY a.id",
        "INSERT OR IGNORE INTO main.moving (source, time) VALUES (?1, ?3)",
    };
    int rc = db_exec_on(ctx, ctx->state, "BEGIN IMMEDIATE");
    for (size_t i = 0; !rc && i < CDM_ARRAY_LEN(steps); i++)
        rc = run_moving(ctx, steps[i], "cannot move the index's history into it");
    if (!rc)
        rc = db_exec_on(ctx, ctx->state, "COMMIT");
    if (rc)
        sqlite3_exec(ctx->state, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static int move_history(cdm_ctx *ctx)
{
    int rc = run_moving(ctx, "ATTACH DATABASE ?1 AS moved", "cannot open the index's history");
    if (rc)
        return rc;
    if (!(rc = copy_history(ctx))) {
        fs_crash_point("history-copied");
        rc = db_exec_on(ctx, ctx->state,
                        "BEGIN IMMEDIATE; DELETE FROM moved.generations; "
                        "DELETE FROM moved.attachments; COMMIT");
        if (rc)
            sqlite3_exec(ctx->state, "ROLLBACK", NULL, NULL, NULL);
    }
    if (!rc) {
        fs_crash_point("history-moved");
        rc = run_moving(ctx, "DELETE FROM main.moving WHERE source = ?1",
                        "cannot finish moving the index's history");
    }
    sqlite3_exec(ctx->state, "DETACH DATABASE moved", NULL, NULL, NULL);
    if (!rc)
        cdm_note(ctx, "moved the projects' history from '%s' to '%s'", index_file(ctx),
                 ctx->state_path);
    return rc;
}

/* A kill between the index's rows going and the `moving` row going leaves that row: with
 * the index's rows gone, it goes now (so that it never stops a later move). */
static int forget_finished_move(cdm_ctx *ctx)
{
    bool any = false;
    int rc = db_exists(ctx, ctx->state, "SELECT EXISTS (SELECT 1 FROM moving)", &any);
    if (rc || !any || !*index_file(ctx) || db_read_only(ctx))
        return rc;
    return run_moving(ctx, "DELETE FROM main.moving WHERE source = ?1",
                      "cannot finish moving the index's history");
}

static int connect_file(cdm_ctx *ctx)
{
    char *dir = path_dirname(ctx->state_path);
    int rc = fs_mkdir_p(ctx, dir);
    free(dir);
    return rc ? rc : db_state_connect(ctx, ctx->state_path);
}

int db_open_read(cdm_ctx *ctx)
{
    int rc = CDM_OK;
    if (!ctx->db) {
        char *path = store_index_path(ctx);
        bool file = fs_kind(path) == FS_FILE;
        rc = db_open(ctx, file ? path : ":memory:",
                     file && ctx->config.shared_read_only ? DB_IMMUTABLE : DB_READ_WRITE);
        free(path);
    }
    if (rc || ctx->state)
        return rc;
    bool move = false;
    if ((rc = index_has_history(ctx, &move)))
        return rc;
    if (!move && fs_kind(ctx->state_path) != FS_FILE)
        return db_state_connect(ctx, ":memory:");
    rc = connect_file(ctx);
    return rc ? rc : move ? move_history(ctx) : forget_finished_move(ctx);
}

int db_state_open(cdm_ctx *ctx)
{
    const char *name = ctx->state ? sqlite3_db_filename(ctx->state, "main") : NULL;
    if (ctx->state && (!name || !*name)) {
        /* read before as empty, in memory: now the file */
        sqlite3_close_v2(ctx->state);
        ctx->state = NULL;
    }
    bool move = false;
    int rc = index_has_history(ctx, &move);
    if (!rc)
        rc = connect_file(ctx);
    return rc ? rc : move ? move_history(ctx) : forget_finished_move(ctx);
}
