/* The doctor's first layer: the store's index and leftovers, the project's link, pin and
 * history. */
#include "db.h"
#include "doctor.h"
#include "store_paths.h"
#include "upstream.h"
#include "platform/fs.h"
#include "platform/fs_volume.h"

#include <stdlib.h>
#include <string.h>

static void check_index(struct doctor *d)
{
    if (!d->store_exists) {
        doctor_add(d, "store.index", CDM_CHECK_SKIP, NULL, "no store at '%s' yet",
                   cdm_root(d->ctx));
        return;
    }
    struct strbuf problems = STRBUF_INIT;
    if (db_integrity(d->ctx, &problems) != CDM_OK)
        sb_add(&problems, cdm_error_message(d->ctx)); /* the check itself could not run */
    char *db = store_index_path(d->ctx);
    if (problems.len)
        doctor_add(d, "store.index", CDM_CHECK_FAIL,
                   "copy the index aside, then restore it from a backup; the version folders "
                   "are intact and can be installed again into a fresh store",
                   "the index '%s' fails SQLite's integrity check: %s", db, sb_str(&problems));
    else
        doctor_add(d, "store.index", CDM_CHECK_OK, NULL,
                   "the index '%s' passes SQLite's integrity check", db);
    free(db);
    sb_free(&problems);
}

static void check_leftovers(struct doctor *d)
{
    if (!d->store_exists) {
        doctor_add(d, "store.leftovers", CDM_CHECK_SKIP, NULL, "no store yet");
        return;
    }
    char **pending = NULL, **staged = NULL;
    char *staging = store_staging_dir(d->ctx);
    db_install_pending(d->ctx, &pending);
    if (fs_kind(staging) == FS_DIR)
        fs_list_dir(d->ctx, staging, &staged);
    struct strbuf sb = STRBUF_INIT;
    size_t n = 0;
    for (char **p = pending; p && *p; p++, n++)
        sb_addf(&sb, "%sunfinished install %s", n ? ", " : "", *p);
    for (char **p = staged; p && *p; p++, n++)
        sb_addf(&sb, "%s.staging/%s", n ? ", " : "", *p);
    if (n)
        doctor_add(d, "store.leftovers", CDM_CHECK_WARN, "run 'cdm gc'",
                   "%u leftover(s) of interrupted work: %s", (unsigned)n, sb_str(&sb));
    else
        doctor_add(d, "store.leftovers", CDM_CHECK_OK, NULL, "no leftovers of interrupted work");
    sb_free(&sb);
    strv_free(pending);
    strv_free(staged);
    free(staging);
}

/* Every recorded install has its folder. */
static void check_installs(struct doctor *d)
{
    if (!d->store_exists)
        return;
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    /* db_install_list, not cdm_list: the doctor reports interrupted work, never finishes it. */
    if (db_install_list(d->ctx, &all, &n) != CDM_OK) {
        doctor_add(d, "store.installs", CDM_CHECK_FAIL, NULL, "%s", cdm_error_message(d->ctx));
        return;
    }
    struct strbuf gone = STRBUF_INIT;
    size_t missing = 0;
    for (size_t i = 0; i < n; i++)
        if (fs_kind(all[i].path) != FS_DIR)
            sb_addf(&gone, "%s%s", missing++ ? ", " : "", all[i].id);
    if (missing) {
        char *fix = xasprintf("remove the record with 'cdm remove ID', or install the archive "
                              "again with 'cdm install ARCHIVE --force'");
        doctor_add(d, "store.installs", CDM_CHECK_FAIL, fix,
                   "%u of %u installs have no folder in the store: %s", (unsigned)missing,
                   (unsigned)n, sb_str(&gone));
        free(fix);
    } else {
        doctor_add(d, "store.installs", CDM_CHECK_OK, NULL, "%u install(s), each with its folder",
                   (unsigned)n);
    }
    sb_free(&gone);
    free(all);
}

/* Each [store] upstream is there and holds a store; one that is gone (an unmounted file
 * system) fails by name: the projects linked into it cannot load cuDNN until it is back. */
static void check_upstreams(struct doctor *d)
{
    for (size_t i = 0; i < d->ctx->config.upstream_count; i++) {
        const char *dir = d->ctx->config.upstreams[i];
        cdm_ctx *u;
        struct cdm_install_info *all = NULL;
        size_t n = 0;
        if (upstream_open(d->ctx, i, &u) != CDM_OK)
            doctor_add(d, "store.upstream", CDM_CHECK_FAIL,
                       "mount it again (or fix [store] upstream); nothing was changed, and its "
                       "projects work again once it is back",
                       "%s", cdm_error_message(d->ctx));
        else if (db_install_list(u, &all, &n) != CDM_OK)
            doctor_add(d, "store.upstream", CDM_CHECK_FAIL, NULL,
                       "the upstream store '%s' cannot be read: %s", dir, cdm_error_message(u));
        else
            doctor_add(d, "store.upstream", CDM_CHECK_OK, NULL,
                       "the upstream store '%s' is there, read only: %u install(s)", dir,
                       (unsigned)n);
        free(all);
    }
}

/* path lies in a [store] upstream that cannot be opened (the message says why). */
static bool upstream_gone(struct doctor *d, const char *path)
{
    int n = upstream_of_path(d->ctx, path);
    cdm_ctx *u;
    return n && upstream_open(d->ctx, (size_t)n - 1, &u) != CDM_OK;
}

/* The project's link: a link cdm made, into the store, to an install it holds. */
static void check_project_link(struct doctor *d, const struct cdm_project *p)
{
    char *fix = NULL;
    if (p->link_foreign) {
        fix = xasprintf("move '%s' away, then run 'cdm link %s'", p->link_path, p->path);
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix,
                   "'%s' is a real file or folder, not a link cdm made", p->link_path);
    } else if (*p->no_link) {
        fix = xasprintf("put the project on an NTFS volume, or let this user make symbolic "
                        "links (Developer Mode), then run 'cdm link %s'",
                        p->path);
        doctor_add(d, "project.link", CDM_CHECK_WARN, fix,
                   "the project has no link: %s; activation points at the store directly ('%s', "
                   "%s)",
                   p->no_link, p->target, p->linked_id);
    } else if (!p->has_link) {
        fix = xasprintf("run 'cdm link %s%s%s'", p->path, p->has_pin ? "" : " ",
                        p->has_pin ? "" : "VERSION");
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix, "there is no link '%s'", p->link_path);
    } else if (upstream_gone(d, p->target)) {
        fix = xasprintf("mount the upstream store again; the link is as it was");
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix,
                   "'%s' points to '%s', in an upstream store that is not there: %s", p->link_path,
                   p->target, cdm_error_message(d->ctx));
    } else if (!*p->linked_id) {
        fix = xasprintf("run 'cdm link %s VERSION' to point it into the store '%s'", p->path,
                        cdm_root(d->ctx));
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix,
                   "'%s' points to '%s', which is not a version folder of the store '%s'",
                   p->link_path, p->target, cdm_root(d->ctx));
    } else if (!doctor_installed(d, p->linked_id, NULL)) {
        fix = xasprintf("run 'cdm install' for %s, or 'cdm link %s VERSION' for another one",
                        p->linked_id, p->path);
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix,
                   "'%s' points to %s, which is not installed", p->link_path, p->linked_id);
    } else {
        doctor_add(d, "project.link", CDM_CHECK_OK, NULL, "'%s' points to %s", p->link_path,
                   p->linked_id);
    }
    free(fix);
}

/* The pin file: there, the same as the link, installed. */
static void check_project_pin(struct doctor *d, const struct cdm_project *p)
{
    char *fix = NULL;
    if (!p->has_pin) {
        fix = xasprintf("run 'cdm link %s %s' to write it, and commit it", p->path,
                        *p->linked_id ? p->linked_id : "VERSION");
        doctor_add(d, "project.pin", CDM_CHECK_WARN, fix,
                   "no %s pin file: a fresh clone cannot get the same version", CDM_PIN_FILE);
    } else if (*p->linked_id && strcmp(p->pinned_id, p->linked_id)) {
        fix = xasprintf("run 'cdm link %s' to follow the pin, or 'cdm link %s %s' to move the "
                        "pin",
                        p->path, p->path, p->linked_id);
        doctor_add(d, "project.pin", CDM_CHECK_FAIL, fix,
                   "the pin says %s but the link points to %s", p->pinned_id, p->linked_id);
    } else if (!doctor_installed(d, p->pinned_id, NULL)) {
        fix = xasprintf("run 'cdm install' for %s", p->pinned_id);
        doctor_add(d, "project.pin", CDM_CHECK_FAIL, fix, "the pin says %s, which is not installed",
                   p->pinned_id);
    } else {
        doctor_add(d, "project.pin", CDM_CHECK_OK, NULL, "the pin says %s", p->pinned_id);
    }
    free(fix);
}

/* The newest generation cdm recorded, in any state, must be what the link shows. */
static void check_project_history(struct doctor *d, const struct cdm_project *p)
{
    char *fix = NULL;
    struct cdm_generation newest;
    bool recorded = db_generation_newest(d->ctx, p->path, &newest) == CDM_OK;
    long long gen = recorded ? newest.number : -1;
    const char *gen_id = recorded ? newest.install_id : "";
    if (!recorded) {
        fix = xasprintf("run 'cdm link %s %s' so that cdm records it", p->path,
                        *p->linked_id ? p->linked_id : "VERSION");
        doctor_add(d, "project.history", CDM_CHECK_WARN, fix,
                   "no generation recorded for this project: the link was made outside cdm");
    } else if (strcmp(gen_id, p->linked_id)) {
        fix = xasprintf("run 'cdm link %s' to make the link match the pin and record it", p->path);
        doctor_add(d, "project.history", CDM_CHECK_FAIL, fix,
                   "generation %lld records %s but the link shows %s", gen,
                   *gen_id ? gen_id : "no link", *p->linked_id ? p->linked_id : "no store version");
    } else {
        doctor_add(d, "project.history", CDM_CHECK_OK, NULL, "generation %lld records %s", gen,
                   gen_id);
    }
    free(fix);
}

/* Said only where it applies: POSIX knows no such folder, and its report stays as it was. */
static void check_project_sync(struct doctor *d, const struct cdm_project *p)
{
    char *sync = fs_cloud_sync(p->path);
    if (sync)
        doctor_add(d, "project.sync", CDM_CHECK_WARN,
                   "move the project out of the synced folder (or the store's files may be "
                   "uploaded or deleted through its link)",
                   "the project is %s: sync clients do not follow junctions and may upload or "
                   "delete through them, and cloud placeholders make files vanish offline",
                   sync);
    free(sync);
}

/* The project here: its link, its pin, its history, its folder. */
static void check_project(struct doctor *d)
{
    if (!d->have_project) {
        doctor_add(d, "project", CDM_CHECK_SKIP, NULL,
                   "no project here (no '%s' link or %s pin file in this folder or above)",
                   cdm_link_name(d->ctx), CDM_PIN_FILE);
        return;
    }
    check_project_link(d, &d->project);
    check_project_pin(d, &d->project);
    check_project_history(d, &d->project);
    check_project_sync(d, &d->project);
}

static const doctor_check_fn checks[] = {check_index, check_leftovers, check_installs,
                                         check_upstreams, check_project};

const struct doctor_layer doctor_store_layer = {"store", checks, CDM_ARRAY_LEN(checks)};
