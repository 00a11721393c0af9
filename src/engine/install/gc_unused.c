/*
 * cdm gc --unused: the installs nothing uses, removed. What uses an install is what this
 * user's state and this store record on this machine: a project's current link (both
 * installs of a pair), an attached environment, the user's default, the cudnn.lock of a
 * project the history knows (linked now or not), a deploy into a CUDA toolkit. Another
 * user's projects on a shared store are not in this user's state: a store others use is
 * cleaned by its writer, who is told so by the store's refusal to change (store.c).
 *
 * Each removal is the install protocol's (journal_install.c), so a kill leaves every
 * install whole or gone; the views of removed installs go with them (views_gc).
 */
#include "default.h"
#include "db.h"
#include "db_attach.h"
#include "db_deploy.h"
#include "install.h"
#include "journal_install.h"
#include "lock.h"
#include "project.h"
#include "store.h"
#include "store_paths.h"
#include "view.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct census {
    struct cdm_unused *v;
    int64_t *installed_at;
    size_t n;
};

/* Say why the install id is kept, unless something said it first. */
static void uses(struct census *c, const char *id, const char *fmt, const char *what)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i].id, id) && !c->v[i].why[0])
            snprintf(c->v[i].why, sizeof(c->v[i].why), fmt, what);
}

static int count_links(cdm_ctx *ctx, struct census *c)
{
    struct cdm_usage *u = NULL;
    size_t n = 0;
    int rc = db_usage_list(ctx, &u, &n);
    for (size_t i = 0; !rc && i < n; i++)
        if (!cdm_project_gone(u[i].project))
            uses(c, u[i].install_id, "linked by the project '%s'", u[i].project);
    if (!rc)
        cdm_usage_free(u, n);
    return rc;
}

static int count_named(struct census *c, char **ids, const char *why)
{
    for (char **id = ids; id && *id; id++)
        uses(c, *id, "%s", why);
    strv_free(ids);
    return CDM_OK;
}

/* The locks of the projects the history knows, linked or not (a lock names what a clone
 * installs: a project unlinked for now still needs it). */
static int count_locks(cdm_ctx *ctx, struct census *c)
{
    char **projects = NULL;
    int rc = db_projects_known(ctx, &projects);
    for (char **p = projects; !rc && p && *p; p++) {
        char id[64];
        int got = cdm_project_gone(*p) ? CDM_ENOTFOUND : lock_install_id(ctx, *p, id, sizeof(id));
        if (got == CDM_OK) {
            char *lock = path_join(*p, CDM_LOCK_FILE);
            uses(c, id, "named by '%s'", lock);
            free(lock);
        } else if (got != CDM_ENOTFOUND) {
            rc = got; /* a lock that cannot be read: nothing is removed on a guess */
        }
    }
    strv_free(projects);
    return rc;
}

static int count_default(cdm_ctx *ctx, struct census *c)
{
    struct default_choice *d = xcalloc(1, sizeof(*d));
    int rc = default_read(ctx, d);
    if (rc == CDM_OK && fs_same_path(d->root, ctx->root))
        uses(c, d->id, "%s", "the default ('cdm default')");
    free(d);
    return rc == CDM_ENOTFOUND ? CDM_OK : rc;
}

/* Everything that uses an install, each kept install saying its first reason. */
static int take_census(cdm_ctx *ctx, struct census *c)
{
    char **attached = NULL, **deployed = NULL;
    int rc = count_links(ctx, c);
    if (!rc && !(rc = db_attach_install_ids(ctx, &attached)))
        rc = count_named(c, attached, "attached to a Python environment ('cdm attach')");
    if (!rc && !(rc = db_deploy_install_ids(ctx, &deployed)))
        rc = count_named(c, deployed, "deployed into a CUDA toolkit ('cdm deploy')");
    if (!rc)
        rc = count_default(ctx, c);
    if (!rc)
        rc = count_locks(ctx, c);
    return rc;
}

/* The keep newest of the installs nothing uses stay too. */
static void keep_newest(struct census *c, unsigned keep)
{
    for (unsigned k = 0; k < keep; k++) {
        size_t newest = c->n;
        for (size_t i = 0; i < c->n; i++)
            if (!c->v[i].why[0] && (newest == c->n || c->installed_at[i] > c->installed_at[newest]))
                newest = i;
        if (newest == c->n)
            return;
        snprintf(c->v[newest].why, sizeof(c->v[newest].why),
                 "unused, but one of the %u newest unused (--keep)", keep);
    }
}

static int read_installs(cdm_ctx *ctx, struct census *c)
{
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    int rc = db_install_list(ctx, &all, &n);
    if (rc)
        return rc;
    c->v = xcalloc(n ? n : 1, sizeof(*c->v));
    c->installed_at = xcalloc(n ? n : 1, sizeof(*c->installed_at));
    for (size_t i = 0; i < n; i++) {
        COPY_STR_ARRAY(c->v[i].id, all[i].id);
        c->v[i].size = all[i].size;
        c->installed_at[i] = all[i].installed_at;
    }
    c->n = n;
    free(all);
    return CDM_OK;
}

/* ---- the bytes a removal frees ---------------------------------------------------------
 * Identical files of installs are stored once (dedup.c: hard links). Removing an install
 * frees a file's bytes only where no install that stays shares it, and a file that several
 * removed installs share is counted once, for the first of them. */

struct freed {
    cdm_ctx *ctx;
    const struct census *c;
    size_t self;      /* the install being counted */
    const char *dir;  /* its folder */
    const char *path; /* the file being judged, in that folder */
    bool shared;      /* it is one file with a kept (or earlier removed) install's */
    uint64_t bytes;   /* freed so far */
};

static const struct cdm_unused *census_get(const struct census *c, const char *id, size_t *at)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i].id, id))
            return *at = i, &c->v[i];
    return NULL;
}

static int same_storage(void *arg, const struct db_file_ref *ref)
{
    struct freed *f = arg;
    size_t at = 0;
    const struct cdm_unused *other = census_get(f->c, ref->install_id, &at);
    if (!other || (other->removed && at > f->self))
        return 0; /* a later removed install: this one counts the bytes */
    char *dir = store_install_path(f->ctx, ref->install_id);
    char *path = path_join(dir, ref->path);
    f->shared = link_same_file(f->path, path);
    free(path);
    free(dir);
    return f->shared;
}

static int count_file(void *arg, const struct db_file *file)
{
    struct freed *f = arg;
    if (file->link_target || !file->sha256)
        return CDM_OK;
    char *path = path_join(f->dir, file->path);
    f->path = path;
    f->shared = false;
    int rc = file->size < DEDUP_SHARE_MIN
                 ? CDM_OK
                 : db_files_alike_each(f->ctx, file->sha256, file->size, file->mode,
                                       f->c->v[f->self].id, same_storage, f);
    if (!f->shared)
        f->bytes += file->size;
    free(path);
    return rc;
}

/* Each removed install's size becomes the bytes its removal frees. */
static int count_freed(cdm_ctx *ctx, struct census *c)
{
    int rc = CDM_OK;
    for (size_t i = 0; !rc && i < c->n; i++) {
        if (!c->v[i].removed)
            continue;
        char *dir = store_install_path(ctx, c->v[i].id);
        struct freed f = {.ctx = ctx, .c = c, .self = i, .dir = dir};
        rc = db_files_each(ctx, c->v[i].id, count_file, &f);
        c->v[i].size = f.bytes;
        free(dir);
    }
    return rc;
}

int cdm_gc_unused(cdm_ctx *ctx, const struct cdm_gc_unused_request *req, struct cdm_unused **out,
                  size_t *count)
{
    *out = NULL;
    *count = 0;
    struct census c = {0};
    int rc = store_open(ctx, STORE_WRITE, RECOVER_ALL);
    if (!rc && !(rc = read_installs(ctx, &c)) && !(rc = take_census(ctx, &c)))
        keep_newest(&c, req->keep);
    bool removed_any = false;
    for (size_t i = 0; !rc && i < c.n; i++)
        c.v[i].removed = !c.v[i].why[0];
    if (!rc) /* before anything goes: the links that share files are still there */
        rc = count_freed(ctx, &c);
    for (size_t i = 0; !rc && i < c.n; i++)
        if (c.v[i].removed && !req->dry_run && !(rc = journal_install_remove(ctx, c.v[i].id)))
            removed_any = true;
    unsigned views = 0;
    if (!rc && removed_any)
        rc = views_gc(ctx, &views);
    free(c.installed_at);
    if (rc) {
        free(c.v);
        return rc;
    }
    *out = c.v;
    *count = c.n;
    return CDM_OK;
}
