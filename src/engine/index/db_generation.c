/* The generations table of the user's state: every change of a project's link, numbered
 * per project, each naming the store (its root) whose install it links. */
#include "db.h"
#include "base/name.h"
#include "config.h"
#include "store_paths.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GEN_COLUMNS                                                                                \
    "g.generation, g.install_id, g.action, g.link_name, g.time, t.toolkit_version, t.toolkit, "    \
    "t.view, g.no_link"
/* A generation with its toolkit, when it recorded one. */
#define GEN_FROM                                                                                   \
    "generations g LEFT JOIN generation_toolkits t ON t.project = g.project AND "                  \
    "t.generation = g.generation"

/* The newest "ok" generation of each project, as a condition on the row g. */
#define GEN_IS_CURRENT                                                                             \
    "g.generation = (SELECT MAX(generation) FROM generations h WHERE h.project = g.project "       \
    "AND h.state = 'ok')"

/* What a generation names that becomes a path (the install's folder, the project's link,
 * the view's folder) must be one plain name: the state may be an older cdm's or edited by
 * hand, and its names lead links and deletes. The bad name, or NULL. */
static const char *names_problem(const char *install_id, const char *link_name, const char *view)
{
    if (install_id && *install_id && name_component_problem(install_id))
        return install_id;
    if (link_name && *link_name && config_link_name_problem(link_name))
        return link_name;
    if (view && *view && name_component_problem(view))
        return view;
    return NULL;
}

static int bad_name(cdm_ctx *ctx, const char *project, long long number, const char *name)
{
    return cdm_error_set(ctx, CDM_EDB,
                         "state '%s': generation %lld of '%s' names '%s', which is no plain "
                         "name (cdm did not write it: the state was edited or damaged); "
                         "restore the state file or remove it to start the history anew",
                         sqlite3_db_filename(ctx->state, "main"), number, project, name);
}

static int read_row(cdm_ctx *ctx, sqlite3_stmt *st, void *elem)
{
    struct cdm_generation *g = elem;
    memset(g, 0, sizeof(*g));
    g->number = sqlite3_column_int64(st, 0);
    bool fits = db_column_text(st, 1, g->install_id, sizeof(g->install_id));
    fits &= db_column_text(st, 2, g->action, sizeof(g->action));
    fits &= db_column_text(st, 3, g->link_name, sizeof(g->link_name));
    g->time = sqlite3_column_int64(st, 4);
    fits &= db_column_text(st, 5, g->toolkit, sizeof(g->toolkit));
    fits &= db_column_text(st, 6, g->toolkit_path, sizeof(g->toolkit_path));
    fits &= db_column_text(st, 7, g->view, sizeof(g->view));
    fits &= db_column_text(st, 8, g->no_link, sizeof(g->no_link));
    if (!fits)
        return cdm_error_set(ctx, CDM_EDB,
                             "state '%s': generation %lld has a value too long for cdm; check "
                             "it with 'cdm doctor'",
                             sqlite3_db_filename(ctx->state, "main"), g->number);
    const char *bad = names_problem(g->install_id, g->link_name, g->view);
    return bad ? bad_name(ctx, "the project", g->number, bad) : CDM_OK;
}

/* The one row st selects into *out; CDM_ENOTFOUND without a message when there is none. */
static int read_one(cdm_ctx *ctx, sqlite3_stmt *st, struct cdm_generation *out)
{
    int step = sqlite3_step(st);
    int rc = step == SQLITE_ROW    ? read_row(ctx, st, out)
             : step == SQLITE_DONE ? CDM_ENOTFOUND
                                   : db_fail_on(ctx, ctx->state, "cannot read a generation");
    sqlite3_finalize(st);
    return rc;
}

int db_generation_get(cdm_ctx *ctx, const char *project, long long number,
                      struct cdm_generation *out)
{
    sqlite3_stmt *st = NULL;
    int rc =
        db_prepare_key_on(ctx, ctx->state,
                          number ? "SELECT " GEN_COLUMNS " FROM " GEN_FROM " WHERE g.project = ?1 "
                                   "AND g.state = 'ok' AND g.generation = ?2"
                                 : "SELECT " GEN_COLUMNS " FROM " GEN_FROM " WHERE g.project = ?1 "
                                   "AND g.state = 'ok' ORDER BY g.generation DESC LIMIT 1",
                          project, &st);
    if (rc)
        return rc;
    if (number)
        sqlite3_bind_int64(st, 2, number);
    rc = read_one(ctx, st, out);
    if (!rc)
        out->current = !number;
    return rc;
}

int db_generation_newest(cdm_ctx *ctx, const char *project, struct cdm_generation *out)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT " GEN_COLUMNS " FROM " GEN_FROM " WHERE g.project = ?1 "
                               "ORDER BY g.generation DESC LIMIT 1",
                               project, &st);
    return rc ? rc : read_one(ctx, st, out);
}

int db_generation_list(cdm_ctx *ctx, const char *project, struct cdm_generation **out,
                       size_t *count)
{
    *out = NULL;
    *count = 0;
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT " GEN_COLUMNS " FROM " GEN_FROM " WHERE g.project = ?1 AND "
                               "g.state = 'ok' ORDER BY g.generation",
                               project, &st);
    if (rc)
        return rc;
    struct cdm_generation *v = NULL;
    size_t n = 0;
    rc = db_collect(ctx, st, sizeof(*v), read_row, "cannot read the history", (void **)&v, &n);
    if (rc)
        return rc;
    if (n)
        v[n - 1].current = true;
    *out = v;
    *count = n;
    return CDM_OK;
}

int db_generation_add(cdm_ctx *ctx, const char *project, const char *install_id, const char *action,
                      const char *link_name, const char *state, long long *number)
{
    /* Numbered in the same statement, one above the project's newest in any state. */
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "INSERT INTO generations (project, generation, install_id, action, "
                               "link_name, time, state, store) SELECT ?1, "
                               "COALESCE(MAX(generation), 0) + 1, ?2, ?3, ?4, ?5, ?6, ?7 FROM "
                               "generations WHERE project = ?1 RETURNING generation",
                               project, &st);
    if (rc)
        return rc;
    db_bind_text_or_null(st, 2, install_id);
    sqlite3_bind_text(st, 3, action, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, link_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)time(NULL));
    sqlite3_bind_text(st, 6, state, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, ctx->root, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        if (number)
            *number = sqlite3_column_int64(st, 0);
        return db_run(ctx, st, "cannot record a generation"); /* to its end */
    }
    rc = db_fail_on(ctx, ctx->state, "cannot record a generation");
    sqlite3_finalize(st);
    return rc;
}

int db_generation_set_view(cdm_ctx *ctx, const char *project, long long number,
                           const struct db_view_ref *view)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "INSERT OR REPLACE INTO generation_toolkits (project, generation, "
                               "toolkit_version, toolkit, view) VALUES (?1, ?2, ?3, ?4, ?5)",
                               project, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 2, number);
    /* a pair view has no toolkit: "" (the columns hold no NULL) */
    sqlite3_bind_text(st, 3, view->toolkit_version ? view->toolkit_version : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, view->toolkit ? view->toolkit : "", -1, SQLITE_STATIC);
    db_bind_text_or_null(st, 5, view->name);
    return db_run(ctx, st, "cannot record a generation's toolkit");
}

int db_view_toolkit(cdm_ctx *ctx, const char *name, char **toolkit)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT toolkit FROM generation_toolkits WHERE view = ?1 LIMIT 1",
                               name, &st);
    if (rc)
        return rc;
    char **found = NULL;
    if ((rc = db_collect_strings(ctx, st, &found)))
        return rc;
    *toolkit = found[0] ? xstrdup(found[0]) : NULL;
    strv_free(found);
    return *toolkit ? CDM_OK : CDM_ENOTFOUND;
}

int db_views_in_use(cdm_ctx *ctx, char ***names)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT DISTINCT t.view FROM " GEN_FROM " WHERE t.view IS NOT NULL "
                               "AND g.store IS ?1 AND (g.state = 'pending' OR " GEN_IS_CURRENT
                               ") ORDER BY t.view",
                               ctx->root, &st);
    return rc ? rc : db_collect_strings(ctx, st, names);
}

/* One statement on generation number of project (?1, ?2), with value as ?3 when given. */
static int on_generation(cdm_ctx *ctx, const char *sql, const char *project, long long number,
                         const char *value)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state, sql, project, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 2, number);
    if (value)
        sqlite3_bind_text(st, 3, value, -1, SQLITE_TRANSIENT);
    return db_run(ctx, st, "cannot update a generation");
}

int db_generation_settle(cdm_ctx *ctx, const char *project, long long number, const char *state)
{
    /* A dropped change's toolkit goes with it: the next change reuses its number. */
    int rc = state ? CDM_OK
                   : on_generation(ctx,
                                   "DELETE FROM generation_toolkits WHERE project = ?1 AND "
                                   "generation = ?2",
                                   project, number, NULL);
    if (rc)
        return rc;
    return on_generation(ctx,
                         state ? "UPDATE generations SET state = ?3 WHERE project = ?1 AND "
                                 "generation = ?2"
                               : "DELETE FROM generations WHERE project = ?1 AND generation = ?2",
                         project, number, state);
}

int db_generation_set_no_link(cdm_ctx *ctx, const char *project, long long number, const char *why)
{
    char cut[512];
    copy_text(cut, sizeof(cut), why); /* a message for people: cut to what the row keeps */
    return on_generation(ctx,
                         "UPDATE generations SET no_link = ?3 WHERE project = ?1 AND "
                         "generation = ?2",
                         project, number, cut);
}

struct ref_list {
    struct db_generation_ref *v;
    size_t n;
};

static void refs_free(struct ref_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].project);
        free(l->v[i].install_id);
        free(l->v[i].link_name);
        free(l->v[i].view);
    }
    free(l->v);
}

/* Rows of (project, generation, install_id, link_name), each handed to fn once all are
 * read. */
static int each_ref(cdm_ctx *ctx, const char *sql, const char *what, db_generation_fn fn, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_on(ctx, ctx->state, sql, &st);
    if (rc)
        return rc;
    struct ref_list l = {NULL, 0};
    size_t cap = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (l.n == cap)
            l.v = xrealloc(l.v, (cap = cap ? cap * 2 : 4) * sizeof(*l.v));
        const char *id = (const char *)sqlite3_column_text(st, 2);
        l.v[l.n].project = xstrdup((const char *)sqlite3_column_text(st, 0));
        l.v[l.n].number = sqlite3_column_int64(st, 1);
        l.v[l.n].install_id = id ? xstrdup(id) : NULL;
        l.v[l.n].link_name = xstrdup((const char *)sqlite3_column_text(st, 3));
        const char *view = (const char *)sqlite3_column_text(st, 4);
        l.v[l.n].view = view ? xstrdup(view) : NULL;
        l.v[l.n].no_link = sqlite3_column_type(st, 5) != SQLITE_NULL;
        l.n++;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE)
        rc = db_fail_on(ctx, ctx->state, what);
    for (size_t i = 0; i < l.n && !rc; i++) {
        const struct db_generation_ref *g = &l.v[i];
        const char *bad = names_problem(g->install_id, g->link_name, g->view);
        rc = bad ? bad_name(ctx, g->project, g->number, bad) : fn(ctx, g, arg);
    }
    refs_free(&l);
    return rc;
}

int db_generation_each_pending(cdm_ctx *ctx, db_generation_fn fn, void *arg)
{
    return each_ref(ctx,
                    "SELECT g.project, g.generation, g.install_id, g.link_name, t.view, g.no_link "
                    "FROM " GEN_FROM " WHERE g.state = 'pending' ORDER BY g.project, g.generation",
                    "cannot read pending generations", fn, arg);
}

int db_generation_each_current_link(cdm_ctx *ctx, db_generation_fn fn, void *arg)
{
    return each_ref(ctx,
                    "SELECT g.project, g.generation, g.install_id, g.link_name, t.view, g.no_link "
                    "FROM " GEN_FROM " WHERE g.state = 'ok' AND g.install_id IS NOT NULL "
                    "AND " GEN_IS_CURRENT " ORDER BY g.project",
                    "cannot read the projects", fn, arg);
}

/* A row of the usage scan: a project's generation in state "ok", and its install. */
struct usage_row {
    char *project;
    char *install_id; /* NULL for an unlink, or a link into another store */
    char *also;       /* a pair view's second install, NULL for none */
    long long generation;
};

static int read_usage(cdm_ctx *ctx, sqlite3_stmt *st, void *elem)
{
    (void)ctx;
    struct usage_row *r = elem;
    const unsigned char *project = sqlite3_column_text(st, 0), *id = sqlite3_column_text(st, 2);
    r->project = xstrdup(project ? (const char *)project : "");
    r->install_id = id && sqlite3_column_int(st, 3) ? xstrdup((const char *)id) : NULL;
    r->generation = sqlite3_column_int64(st, 1);
    const unsigned char *view = sqlite3_column_text(st, 4);
    char also[64];
    r->also = r->install_id && view && pair_view_also((const char *)view, also, sizeof(also))
                  ? xstrdup(also)
                  : NULL;
    return CDM_OK;
}

static int by_project_then_generation(const void *a, const void *b)
{
    const struct usage_row *x = a, *y = b;
    int c = strcmp(x->project, y->project);
    return c ? c : (x->generation > y->generation) - (x->generation < y->generation);
}

static int by_install_then_project(const void *a, const void *b)
{
    const struct cdm_usage *x = a, *y = b;
    int c = strcmp(x->install_id, y->install_id);
    return c ? c : strcmp(x->project, y->project);
}

int db_usage_list(cdm_ctx *ctx, struct cdm_usage **out, size_t *count)
{
    /* GEN_IS_CURRENT for every project at once: one pass over the table, the newest "ok"
     * generation of each project picked here, which with thousands of projects costs a
     * fraction of the per-row subquery's index lookups. */
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT g.project, g.generation, g.install_id, g.store IS ?1, "
                               "t.view FROM generations g LEFT JOIN generation_toolkits t ON "
                               "t.project = g.project AND t.generation = g.generation WHERE "
                               "g.state = 'ok'",
                               ctx->root, &st);
    struct usage_row *rows = NULL;
    size_t n = 0;
    if (!rc)
        rc = db_collect(ctx, st, sizeof(*rows), read_usage, "cannot read the projects",
                        (void **)&rows, &n);
    if (rc)
        return rc;
    qsort(rows, n, sizeof(*rows), by_project_then_generation);
    struct cdm_usage *v = xmalloc((n ? 2 * n : 1) * sizeof(*v));
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        bool newest = i + 1 == n || strcmp(rows[i].project, rows[i + 1].project) != 0;
        if (newest && rows[i].also) /* the second major's install is in use too */
            v[used++] = (struct cdm_usage){rows[i].also, xstrdup(rows[i].project)};
        else
            free(rows[i].also);
        if (newest && rows[i].install_id) {
            v[used++] = (struct cdm_usage){rows[i].install_id, rows[i].project};
            continue;
        }
        free(rows[i].install_id);
        free(rows[i].project);
    }
    free(rows);
    qsort(v, used, sizeof(*v), by_install_then_project);
    *out = v;
    *count = used;
    return CDM_OK;
}

int db_projects_using(cdm_ctx *ctx, const char *install_id, char ***projects)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT g.project FROM generations g WHERE (g.install_id = ?1 "
                               "OR EXISTS (SELECT 1 FROM generation_toolkits t WHERE "
                               "t.project = g.project AND t.generation = g.generation AND "
                               "t.view = g.install_id || '+' || ?1)) "
                               "AND g.store IS ?2 AND " GEN_IS_CURRENT " ORDER BY g.project",
                               install_id, &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 2, ctx->root, -1, SQLITE_STATIC);
    return db_collect_strings(ctx, st, projects);
}

int db_projects_known(cdm_ctx *ctx, char ***projects)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_key_on(ctx, ctx->state,
                               "SELECT DISTINCT project FROM generations WHERE store IS ?1 "
                               "ORDER BY project",
                               ctx->root, &st);
    return rc ? rc : db_collect_strings(ctx, st, projects);
}
