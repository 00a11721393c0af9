/*
 * A project's link and its history: link, unlink, rollback, which, history.
 *
 * Every change is a generation in the index, written in three steps under the store lock:
 *
 *   record the generation as "pending", switch the link (atomically where the platform
 *   allows), write the pin file, mark the generation "ok".
 *
 * A kill at any point leaves the old link or the new one. The next writer (store_recover)
 * looks at each pending generation: when the link on disk is the one it names, the change
 * happened and the record becomes "ok"; otherwise the change did not happen and the record
 * goes. Only "ok" generations are history.
 */
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the generations table ------------------------------------------------------------ */

#define GEN_COLUMNS "generation, install_id, action, link_name, time"

static void gen_read_row(sqlite3_stmt *st, struct cdm_generation *g)
{
    memset(g, 0, sizeof(*g));
    g->number = sqlite3_column_int64(st, 0);
    db_column_text(st, 1, g->install_id, sizeof(g->install_id));
    db_column_text(st, 2, g->action, sizeof(g->action));
    db_column_text(st, 3, g->link_name, sizeof(g->link_name));
    g->time = sqlite3_column_int64(st, 4);
}

/* One generation: the given number, or the newest "ok" one when number is 0.
 * CDM_ENOTFOUND without a message when there is none. */
static int gen_get(cdm_ctx *ctx, const char *project, long long number, struct cdm_generation *out)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        number ? "SELECT " GEN_COLUMNS " FROM generations WHERE project = ?1 "
                                 "AND state = 'ok' AND generation = ?2"
                               : "SELECT " GEN_COLUMNS " FROM generations WHERE project = ?1 "
                                 "AND state = 'ok' ORDER BY generation DESC LIMIT 1",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, project, -1, SQLITE_STATIC);
    if (number)
        sqlite3_bind_int64(st, 2, number);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        gen_read_row(st, out);
        out->current = !number;
    } else {
        rc = step == SQLITE_DONE ? CDM_ENOTFOUND : db_fail(ctx, "cannot read a generation");
    }
    sqlite3_finalize(st);
    return rc;
}

static int gen_next_number(cdm_ctx *ctx, const char *project, long long *number)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT COALESCE(MAX(generation), 0) + 1 FROM generations "
                        "WHERE project = ?1",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, project, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        *number = sqlite3_column_int64(st, 0);
    else
        rc = db_fail(ctx, "cannot number a generation");
    sqlite3_finalize(st);
    return rc;
}

static int gen_insert(cdm_ctx *ctx, const char *project, long long number, const char *install_id,
                      const char *action, const char *link_name, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "INSERT INTO generations (project, generation, install_id, action, "
                        "link_name, time, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, project, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, number);
    if (install_id && *install_id)
        sqlite3_bind_text(st, 3, install_id, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    sqlite3_bind_text(st, 4, action, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, link_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)time(NULL));
    sqlite3_bind_text(st, 7, state, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail(ctx, "cannot record a generation");
    sqlite3_finalize(st);
    return rc;
}

/* Mark a pending generation "ok", or delete it (state NULL). */
static int gen_settle(cdm_ctx *ctx, const char *project, long long number, const char *state)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        state ? "UPDATE generations SET state = ?3 WHERE project = ?1 AND "
                                "generation = ?2"
                              : "DELETE FROM generations WHERE project = ?1 AND "
                                "generation = ?2",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, project, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, number);
    if (state)
        sqlite3_bind_text(st, 3, state, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail(ctx, "cannot update a generation");
    sqlite3_finalize(st);
    return rc;
}

/* ---- small helpers --------------------------------------------------------------------- */

/* The key a project is recorded under: its canonical path, or for a folder that is gone,
 * the canonical path of its parent joined with its name. */
static char *project_key(const char *path)
{
    char *real = fs_realpath(path);
    if (real)
        return real;
    char *abs = fs_absolute(path);
    char *parent = path_dirname(abs);
    char *real_parent = fs_realpath(parent);
    char *key = real_parent ? path_join(real_parent, path_basename(abs)) : xstrdup(abs);
    free(real_parent);
    free(parent);
    free(abs);
    return key;
}

/* Append to a "not installed" message where a matching archive lies in [install] sources. */
static void hint_sources(cdm_ctx *ctx, const char *spec_text)
{
    struct version_spec spec;
    if (!version_spec_parse(spec_text, &spec))
        return;
    struct saved_error saved = error_save(ctx);
    char *found = NULL;
    for (size_t s = 0; s < ctx->config.source_count && !found; s++) {
        char **names = NULL;
        if (fs_list_dir(ctx, ctx->config.sources[s], &names) != CDM_OK)
            continue;
        for (char **n = names; *n && !found; n++) {
            struct archive_name an;
            if (archive_name_parse(*n, &an) && !strcmp(an.platform, cdm_host_platform()) &&
                version_spec_matches(&spec, &an.version, an.cuda_major))
                found = path_join(ctx->config.sources[s], *n);
        }
        strv_free(names);
    }
    error_restore(ctx, &saved);
    if (found) {
        char *message = xstrdup(cdm_error_message(ctx));
        cdm_error_set(ctx, saved.code, "%s; its archive '%s' is in [install] sources", message,
                      found);
        free(message);
        free(found);
    }
}

static bool valid_link_name(const char *name)
{
    return *name && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/') &&
           !strchr(name, '\\') && strcmp(name, CDM_PIN_FILE) && strlen(name) < 256;
}

/* The pin file holds the install id; written whole (temporary file, then rename). */
static int pin_write(cdm_ctx *ctx, const struct cdm_project *p, const char *id)
{
    if (p->has_pin && !strcmp(p->pinned_id, id))
        return CDM_OK;
    char *pin = path_join(p->path, CDM_PIN_FILE);
    char *tmp_name =
        xasprintf("%s.cdm-%llu.tmp", CDM_PIN_FILE, (unsigned long long)fs_process_id());
    char *tmp = path_join(p->path, tmp_name);
    char *text = xasprintf("%s\n", id);
    struct fs_file *f = NULL;
    int rc = CDM_OK;
    if (fs_kind(tmp) == FS_FILE)
        rc = fs_remove_file(ctx, tmp); /* ours: left by a killed cdm of the same pid */
    if (!rc && !(rc = fs_file_create(ctx, tmp, false, &f))) {
        rc = fs_file_write(ctx, f, text, strlen(text));
        int close_rc = fs_file_close(ctx, f);
        if (!rc)
            rc = close_rc;
        if (!rc)
            rc = fs_rename(ctx, tmp, pin);
        if (rc)
            fs_remove_file(ctx, tmp);
        else
            fs_sync_dir(p->path);
    }
    free(text);
    free(tmp);
    free(tmp_name);
    free(pin);
    return rc;
}

/* Temporary links and pin files a killed cdm left in a project folder: ours by name and
 * kind, and nothing else is touched. */
static void clean_project_leftovers(cdm_ctx *ctx, const char *dir, const char *link_name)
{
    char **names = NULL;
    if (fs_list_dir(ctx, dir, &names) != CDM_OK)
        return;
    char *link_prefix = xasprintf("%s.cdm-", link_name);
    char *pin_prefix = xasprintf("%s.cdm-", CDM_PIN_FILE);
    for (char **n = names; *n; n++) {
        if (!str_ends_with(*n, ".tmp"))
            continue;
        char *path = path_join(dir, *n);
        if (str_starts_with(*n, link_prefix) && fs_kind(path) == FS_LINK)
            link_remove(ctx, path);
        else if (str_starts_with(*n, pin_prefix) && fs_kind(path) == FS_FILE)
            fs_remove_file(ctx, path);
        free(path);
    }
    free(pin_prefix);
    free(link_prefix);
    strv_free(names);
}

/* ---- the change itself ----------------------------------------------------------------- */

/*
 * Point p's link, named link_name, at install in (NULL: remove the link), recorded as a
 * generation with action. When the project's link had another name (old_name, from its
 * history), that old link is removed once the new one stands.
 */
static int apply(cdm_ctx *ctx, const struct cdm_project *p, const char *old_name,
                 const char *link_name, const struct cdm_install_info *in, const char *action)
{
    long long number = 0;
    int rc = gen_next_number(ctx, p->path, &number);
    if (rc ||
        (rc = gen_insert(ctx, p->path, number, in ? in->id : NULL, action, link_name, "pending")))
        return rc;
    char *link_path = path_join(p->path, link_name);
    rc = in ? link_set(ctx, link_path, in->path) : link_remove(ctx, link_path);
    free(link_path);
    if (rc) {
        struct saved_error saved = error_save(ctx);
        gen_settle(ctx, p->path, number, NULL);
        return error_restore(ctx, &saved);
    }
    if (in && pin_write(ctx, p, in->id) != CDM_OK)
        cdm_warn(ctx, "the link was switched but the pin file was not written: %s",
                 cdm_error_message(ctx));
    if (old_name && strcmp(old_name, link_name)) {
        char *old_path = path_join(p->path, old_name);
        enum link_kind kind;
        char *target = NULL;
        if (link_read(ctx, old_path, &kind, &target) == CDM_OK && kind == LINK_OURS &&
            link_remove(ctx, old_path) != CDM_OK)
            cdm_warn(ctx, "%s", cdm_error_message(ctx));
        free(target);
        free(old_path);
    }
    return gen_settle(ctx, p->path, number, "ok");
}

/* ---- reading --------------------------------------------------------------------------- */

/* The version part of an install id: "9.1.0.70" of "9.1.0.70-cuda12". */
static void id_version(const char *id, char *out, size_t size)
{
    const char *dash = strstr(id, "-cuda");
    size_t n = dash ? (size_t)(dash - id) : strlen(id);
    if (n >= size)
        n = size - 1;
    memcpy(out, id, n);
    out[n] = '\0';
}

static int describe(cdm_ctx *ctx, struct cdm_which_info *out)
{
    struct cdm_generation cur;
    int rc = gen_get(ctx, out->project.path, 0, &cur);
    if (rc == CDM_OK) {
        out->generation = cur.number;
        copy_str(out->index_id, sizeof(out->index_id), cur.install_id);
    } else if (rc != CDM_ENOTFOUND) {
        return rc;
    }
    const char *id = out->project.linked_id;
    if (*id) {
        struct cdm_install_info in;
        out->installed = db_install_get(ctx, id, &in, NULL) == CDM_OK;
        if (out->installed)
            copy_str(out->version, sizeof(out->version), in.version);
        else
            id_version(id, out->version, sizeof(out->version));
    }
    out->drift = !out->gone && strcmp(out->index_id, id) != 0;
    return CDM_OK;
}

int cdm_which(cdm_ctx *ctx, const char *project, struct cdm_which_info *out)
{
    memset(out, 0, sizeof(*out));
    int rc = store_open(ctx, false);
    if (rc)
        return rc;
    if (!project) {
        rc = cdm_project_find(ctx, NULL, &out->project);
    } else if (!cdm_project_gone(project)) {
        rc = cdm_project_open(ctx, project, &out->project);
    } else {
        /* The folder is gone: what the index remembers of it. */
        char *key = project_key(project);
        struct cdm_generation cur;
        rc = gen_get(ctx, key, 0, &cur);
        if (rc == CDM_ENOTFOUND)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "no project folder '%s': no such folder, and cdm has no record "
                               "of it",
                               project);
        if (rc == CDM_OK) {
            out->gone = true;
            copy_str(out->project.path, sizeof(out->project.path), key);
            copy_str(out->project.link_name, sizeof(out->project.link_name), cur.link_name);
            char *link = path_join(key, cur.link_name);
            copy_str(out->project.link_path, sizeof(out->project.link_path), link);
            free(link);
        }
        free(key);
    }
    return rc ? rc : describe(ctx, out);
}

bool cdm_project_gone(const char *project)
{
    char *real = fs_realpath(project);
    bool gone = !real || fs_kind(real) != FS_DIR;
    free(real);
    return gone;
}

int cdm_history(cdm_ctx *ctx, const char *project, char *path, struct cdm_generation **out,
                size_t *count)
{
    *out = NULL;
    *count = 0;
    int rc = store_open(ctx, false);
    if (rc)
        return rc;
    char *key = project_key(project);
    copy_str(path, 4096, key);
    sqlite3_stmt *st = NULL;
    if ((rc = db_prepare(ctx,
                         "SELECT " GEN_COLUMNS " FROM generations WHERE project = ?1 AND "
                         "state = 'ok' ORDER BY generation",
                         &st))) {
        free(key);
        return rc;
    }
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    size_t n = 0, cap = 8;
    struct cdm_generation *v = xmalloc(cap * sizeof(*v));
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        gen_read_row(st, &v[n++]);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE)
        rc = db_fail(ctx, "cannot read the history");
    else if (n == 0)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "no history for '%s': cdm never linked it; run 'cdm link %s VERSION'",
                           key, project);
    free(key);
    if (rc) {
        free(v);
        return rc;
    }
    v[n - 1].current = true;
    *out = v;
    *count = n;
    return CDM_OK;
}

/* ---- changing -------------------------------------------------------------------------- */

/* Open the store for writing and the project in dir, which must exist. */
static int open_for_change(cdm_ctx *ctx, const char *dir, struct cdm_project *p,
                           struct cdm_generation *cur, bool *has_cur)
{
    int rc = store_open(ctx, true);
    if (rc || (rc = cdm_project_open(ctx, dir, p)))
        return rc;
    rc = gen_get(ctx, p->path, 0, cur);
    *has_cur = rc == CDM_OK;
    return rc == CDM_ENOTFOUND ? CDM_OK : rc;
}

static int finish(cdm_ctx *ctx, const char *path, bool changed, struct cdm_link_result *result)
{
    result->changed = changed;
    return cdm_which(ctx, path, &result->now);
}

/* An install that exists in the store, for a link. */
static int installed(cdm_ctx *ctx, const char *id, const char *why, struct cdm_install_info *in)
{
    char state[16] = "";
    if (db_install_get(ctx, id, in, state) != CDM_OK || strcmp(state, "ok")) {
        cdm_error_set(ctx, CDM_ENOTFOUND, "%s: %s was removed since; run 'cdm install %s' first",
                      why, id, id);
        hint_sources(ctx, id);
        return CDM_ENOTFOUND;
    }
    if (fs_kind(in->path) != FS_DIR)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "%s: the store folder '%s' is missing; install %s again", why,
                             in->path, id);
    return CDM_OK;
}

static int refuse_foreign(cdm_ctx *ctx, const char *link_path)
{
    /* Say what is there, so the user sees it is data, not a broken link. */
    struct strbuf what = STRBUF_INIT;
    char **names = NULL;
    if (fs_kind(link_path) != FS_DIR) {
        sb_add(&what, "file");
    } else if (fs_list_dir(ctx, link_path, &names) == CDM_OK) {
        size_t n = 0;
        while (names[n])
            n++;
        sb_addf(&what, "folder with %zu entr%s", n, n == 1 ? "y" : "ies");
        strv_free(names);
    } else {
        sb_add(&what, "folder");
    }
    int rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot link '%s': it is a real %s, not a link; move it away or pass "
                           "another --name",
                           link_path, sb_str(&what));
    sb_free(&what);
    return rc;
}

int cdm_link(cdm_ctx *ctx, const struct cdm_link_request *req, struct cdm_link_result *result)
{
    memset(result, 0, sizeof(*result));
    struct cdm_project p;
    struct cdm_generation cur;
    bool has_cur = false;
    int rc = open_for_change(ctx, req->project, &p, &cur, &has_cur);
    if (rc)
        return rc;
    if (req->name && !valid_link_name(req->name))
        return cdm_error_set(ctx, CDM_EINVAL,
                             "'%s' cannot name a link: give a plain file name such as cuda_link",
                             req->name);
    const char *name = req->name ? req->name : p.link_name;
    const char *spec = req->spec;
    if (!spec && !p.has_pin)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "no version to link in '%s': give one ('cdm link %s 9.1') or "
                             "commit a %s pin file",
                             p.path, req->project, CDM_PIN_FILE);
    if (!spec)
        spec = p.pinned_id;
    struct cdm_install_info in;
    if ((rc = cdm_resolve(ctx, spec, req->cuda, &in))) {
        if (rc == CDM_ENOTFOUND)
            hint_sources(ctx, spec);
        return rc;
    }
    char *why = xasprintf("cannot link '%s' to %s", p.path, in.id);
    rc = installed(ctx, in.id, why, &in);
    free(why);
    if (rc)
        return rc;
    copy_str(result->previous_id, sizeof(result->previous_id), p.linked_id);
    char *link_path = path_join(p.path, name);
    enum link_kind kind;
    char *target = NULL;
    rc = link_read(ctx, link_path, &kind, &target);
    if (!rc && kind == LINK_FOREIGN)
        rc = refuse_foreign(ctx, link_path);
    bool same = !rc && kind == LINK_OURS && store_path_is_install(ctx, target, in.id) && has_cur &&
                !strcmp(cur.install_id, in.id) && !strcmp(cur.link_name, name) && p.has_pin &&
                !strcmp(p.pinned_id, in.id);
    free(target);
    free(link_path);
    if (rc)
        return rc;
    if (same)
        return finish(ctx, p.path, false, result);
    /* The old name is only ours to remove when the history says cdm made it. */
    if ((rc = apply(ctx, &p, has_cur ? cur.link_name : NULL, name, &in, "link")))
        return rc;
    return finish(ctx, p.path, true, result);
}

int cdm_unlink(cdm_ctx *ctx, const char *project, bool forget, struct cdm_link_result *result)
{
    memset(result, 0, sizeof(*result));
    struct cdm_project p;
    struct cdm_generation cur;
    bool has_cur = false;
    int rc = open_for_change(ctx, project, &p, &cur, &has_cur);
    if (rc)
        return rc;
    if (p.link_foreign)
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "cannot unlink '%s': it is a real folder or file, not a link cdm "
                             "made; it was left alone",
                             p.link_path);
    copy_str(result->previous_id, sizeof(result->previous_id), p.linked_id);
    bool changed = false;
    /* A link removed by hand while the index says linked: record the unlink all the same. */
    if (p.has_link || (has_cur && cur.install_id[0])) {
        if ((rc = apply(ctx, &p, NULL, p.link_name, NULL, "unlink")))
            return rc;
        changed = true;
    }
    if (forget && p.has_pin) {
        char *pin = path_join(p.path, CDM_PIN_FILE);
        rc = fs_remove_file(ctx, pin);
        free(pin);
        if (rc)
            return rc;
        changed = true;
    }
    return finish(ctx, p.path, changed, result);
}

int cdm_rollback(cdm_ctx *ctx, const char *project, long long to, struct cdm_link_result *result)
{
    memset(result, 0, sizeof(*result));
    struct cdm_project p;
    struct cdm_generation cur, back;
    bool has_cur = false;
    int rc = open_for_change(ctx, project, &p, &cur, &has_cur);
    if (rc)
        return rc;
    if (!has_cur)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot roll back '%s': it has no history; link it with 'cdm link'",
                             p.path);
    long long number = to ? to : cur.number - 1;
    if (number < 1)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot roll back '%s': generation %lld is its first; see 'cdm "
                             "history %s'",
                             p.path, cur.number, project);
    rc = gen_get(ctx, p.path, number, &back);
    if (rc == CDM_ENOTFOUND)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot roll back '%s': it has no generation %lld; see 'cdm "
                             "history %s'",
                             p.path, number, project);
    if (rc)
        return rc;
    copy_str(result->previous_id, sizeof(result->previous_id), p.linked_id);
    struct cdm_install_info in;
    if (back.install_id[0]) {
        char *why = xasprintf("cannot roll back '%s' to generation %lld", p.path, number);
        rc = installed(ctx, back.install_id, why, &in);
        free(why);
        if (rc)
            return rc;
    }
    if (p.link_foreign)
        return refuse_foreign(ctx, p.link_path);
    /* Generation `number` without a link was an unlink: rolling back to it unlinks. */
    if ((rc = apply(ctx, &p, NULL, p.link_name, back.install_id[0] ? &in : NULL, "rollback")))
        return rc;
    return finish(ctx, p.path, true, result);
}

/* cdm remove --force: the project stops using the version being removed. */
int project_unlink_for_remove(cdm_ctx *ctx, const char *project)
{
    struct cdm_project p;
    if (cdm_project_gone(project)) {
        /* Nothing on disk to change: only the record. */
        struct cdm_generation cur;
        long long number = 0;
        int rc = gen_get(ctx, project, 0, &cur);
        if (!rc && !(rc = gen_next_number(ctx, project, &number)))
            rc = gen_insert(ctx, project, number, NULL, "unlink", cur.link_name, "ok");
        return rc;
    }
    int rc = cdm_project_open(ctx, project, &p);
    if (rc)
        return rc;
    if (p.link_foreign)
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "cannot unlink '%s': it is a real folder or file, not a link cdm "
                             "made; move it away, then remove again",
                             p.link_path);
    return apply(ctx, &p, NULL, p.link_name, NULL, "unlink");
}

/* ---- recovery and gc ------------------------------------------------------------------- */

struct pending {
    char *project;
    long long number;
    char *install_id; /* NULL for an unlink */
    char *link_name;
};

static int pending_list(cdm_ctx *ctx, struct pending **out, size_t *count)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT project, generation, install_id, link_name FROM generations "
                        "WHERE state = 'pending' ORDER BY project, generation",
                        &st);
    if (rc)
        return rc;
    size_t n = 0, cap = 4;
    struct pending *v = xmalloc(cap * sizeof(*v));
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        const char *id = (const char *)sqlite3_column_text(st, 2);
        v[n].project = xstrdup((const char *)sqlite3_column_text(st, 0));
        v[n].number = sqlite3_column_int64(st, 1);
        v[n].install_id = id ? xstrdup(id) : NULL;
        v[n].link_name = xstrdup((const char *)sqlite3_column_text(st, 3));
        n++;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) {
        *out = v;
        *count = n;
        return db_fail(ctx, "cannot read pending generations");
    }
    *out = v;
    *count = n;
    return CDM_OK;
}

/* Did the change of a pending generation reach the disk? */
static bool pending_happened(cdm_ctx *ctx, const struct pending *g)
{
    char *link_path = path_join(g->project, g->link_name);
    enum link_kind kind = LINK_FOREIGN;
    char *target = NULL;
    link_read(ctx, link_path, &kind, &target);
    bool happened = g->install_id
                        ? kind == LINK_OURS && store_path_is_install(ctx, target, g->install_id)
                        : kind == LINK_NONE;
    free(target);
    free(link_path);
    return happened;
}

int generation_recover(cdm_ctx *ctx, unsigned *done)
{
    struct pending *v = NULL;
    size_t n = 0;
    int rc = pending_list(ctx, &v, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        struct pending *g = &v[i];
        bool there = !cdm_project_gone(g->project);
        bool happened = there && pending_happened(ctx, g);
        rc = gen_settle(ctx, g->project, g->number, happened ? "ok" : NULL);
        if (there) {
            clean_project_leftovers(ctx, g->project, g->link_name);
            struct cdm_project p;
            /* The pin follows the link; a failure here is reported by the next link. */
            if (!rc && happened && g->install_id && cdm_project_open(ctx, g->project, &p) == CDM_OK)
                pin_write(ctx, &p, g->install_id);
        }
        (*done)++;
    }
    for (size_t i = 0; i < n; i++) {
        free(v[i].project);
        free(v[i].install_id);
        free(v[i].link_name);
    }
    free(v);
    return rc;
}

int generation_drop_gone(cdm_ctx *ctx, unsigned *dropped)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(ctx,
                        "SELECT g.project, g.generation, g.link_name FROM generations g "
                        "WHERE g.state = 'ok' AND g.install_id IS NOT NULL AND g.generation = "
                        "(SELECT MAX(generation) FROM generations h WHERE h.project = g.project "
                        "AND h.state = 'ok') ORDER BY g.project",
                        &st);
    if (rc)
        return rc;
    struct pending *v = xmalloc(sizeof(*v));
    size_t n = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *project = (const char *)sqlite3_column_text(st, 0);
        if (!cdm_project_gone(project))
            continue;
        v = xrealloc(v, (n + 1) * sizeof(*v));
        v[n].project = xstrdup(project);
        v[n].number = sqlite3_column_int64(st, 1);
        v[n].install_id = NULL;
        v[n].link_name = xstrdup((const char *)sqlite3_column_text(st, 2));
        n++;
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE)
        rc = db_fail(ctx, "cannot read the projects");
    /* The history stays; a "gone" generation says the project no longer uses anything. */
    for (size_t i = 0; i < n; i++) {
        long long number = 0;
        if (!rc && !(rc = gen_next_number(ctx, v[i].project, &number)) &&
            !(rc = gen_insert(ctx, v[i].project, number, NULL, "gone", v[i].link_name, "ok")))
            (*dropped)++;
        free(v[i].project);
        free(v[i].link_name);
    }
    free(v);
    return rc;
}
