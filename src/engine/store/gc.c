/*
 * cdm gc: every recovery run (and counted), the records of project folders that are gone
 * settled, the temporary files killed writers left in projects and in the user's state,
 * and the views nothing uses any more.
 */
#include "store.h"
#include "db.h"
#include "project.h"
#include "recover.h"
#include "view.h"
#include "platform/fs.h"

#include <stdlib.h>

/* The record of a project folder that no longer exists: the history stays, and a "gone"
 * generation says the project no longer uses anything. One that exists: the temporary files
 * killed writers left in it. */
static int drop_if_gone(cdm_ctx *ctx, const struct db_generation_ref *g, void *arg)
{
    unsigned *dropped = arg;
    if (!cdm_project_gone(g->project))
        return CDM_OK; /* its temporary files: with every project's (clean_projects) */
    int rc = db_generation_add(ctx, g->project, NULL, "gone", g->link_name, "ok", NULL);
    if (!rc)
        (*dropped)++;
    if (!rc && ctx->options.verbose)
        cdm_note(ctx, "project folder '%s' is gone: it no longer counts as using its version",
                 g->project);
    return rc;
}

/* The temporary files killed writers left in every project the history knows, linked now
 * or not (an unlinked project keeps its pin and its cudnn.lock). */
static int clean_projects(cdm_ctx *ctx, unsigned *removed)
{
    char **projects = NULL;
    int rc = db_projects_known(ctx, &projects);
    for (char **p = projects; !rc && p && *p; p++)
        if (!cdm_project_gone(*p))
            *removed += project_clean_stale_temps(ctx, *p);
    strv_free(projects);
    return rc;
}

int cdm_gc(cdm_ctx *ctx, unsigned *removed)
{
    *removed = 0;
    /* gc runs every recovery itself, to count what it did */
    int rc = store_open(ctx, STORE_WRITE, 0);
    if (!rc && !(rc = recover_run(ctx, RECOVER_ALL, removed)))
        ctx->recovered = RECOVER_ALL;
    if (rc || (rc = db_generation_each_current_link(ctx, drop_if_gone, removed)) ||
        (rc = clean_projects(ctx, removed)))
        return rc;
    /* the user's state files (the default, persist's record, the machine's) are replaced
     * through temporary files too: a killed writer's go */
    char *state = path_dirname(ctx->state_path);
    *removed += fs_clean_stale_temps(ctx, state, NULL);
    free(state);
    return views_gc(ctx, removed);
}
