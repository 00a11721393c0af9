/*
 * The link protocol: a change of a project's link (link, unlink, rollback, a remove's
 * unlink) is a generation in the user's state, written in steps under the state's lock:
 *
 *   record the generation as "pending" (with the toolkit's view it leads to, if any),
 *   switch the link (atomically where the platform allows), write the pin file, let the
 *   attached environments follow the switch, mark the generation "ok".
 *
 * Where no kind of link can be made in the project's folder (Windows: a FAT or exFAT
 * volume, a share, no right to make symbolic links; platform/link.h), the project goes on
 * without one: the generation records why, the pin is written as always, and activation
 * points at the store's folder itself.
 *
 * Recovery (the next writer, under the state's lock): a kill at any point leaves the old
 * link or the new one. When the link on disk is the one a pending generation names, the
 * change happened: the record becomes "ok", the pin follows, and so do the attached
 * environments' hard links (Windows). Otherwise the record goes. Only "ok" generations are
 * history.
 */
#include "journal_link.h"
#include "upstream.h"
#include "attach_switch.h"
#include "db.h"
#include "project.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"

#include <stdlib.h>
#include <string.h>

/* The switch itself: the link to c->target, or none (c->install_id NULL); where no link can
 * be made, the generation records why. A failure takes the pending generation back. */
static int switch_link(cdm_ctx *ctx, const struct link_change *c, long long number)
{
    const char *project = c->project->path;
    char *link_path = path_join(project, c->link_name);
    bool none = false;
    int rc = c->install_id ? link_set_or_none(ctx, link_path, c->target, &none)
                           : link_remove(ctx, link_path);
    free(link_path);
    if (rc && none) {
        /* kept: the index's call may set an error of its own */
        struct saved_error why = error_save(ctx);
        rc = db_generation_set_no_link(ctx, project, number, why.message);
        if (!rc)
            cdm_warn(ctx,
                     "%s: the project has no link; activation points at the store directly "
                     "('%s')",
                     why.message, c->target);
        free(why.message);
    }
    if (rc) {
        struct saved_error saved = error_save(ctx);
        db_generation_settle(ctx, project, number, NULL);
        return error_restore(ctx, &saved);
    }
    return CDM_OK;
}

/* The link of the project's old name, once the new one stands: only cdm's own. */
static void remove_old_link(cdm_ctx *ctx, const char *project, const char *old_name)
{
    char *old_path = path_join(project, old_name);
    enum link_kind kind;
    char *target = NULL;
    if (link_read(ctx, old_path, &kind, &target) == CDM_OK && kind == LINK_OURS &&
        link_remove(ctx, old_path) != CDM_OK)
        cdm_warn(ctx, "%s", cdm_error_message(ctx));
    free(target);
    free(old_path);
}

int journal_link_change(cdm_ctx *ctx, const struct link_change *c)
{
    const struct cdm_project *p = c->project;
    long long number = 0;
    int rc =
        db_generation_add(ctx, p->path, c->install_id, c->action, c->link_name, "pending", &number);
    if (!rc && c->install_id && (*c->view.toolkit_version || c->view.name))
        rc = db_generation_set_view(ctx, p->path, number, &c->view);
    if (rc)
        return rc;
    fs_crash_point("link-recorded");
    if ((rc = switch_link(ctx, c, number)))
        return rc;
    fs_crash_point("link-switched");
    if (c->pin && project_pin_write(ctx, p, c->pin) != CDM_OK)
        cdm_warn(ctx, "the link was switched but the pin file was not written: %s",
                 cdm_error_message(ctx));
    if (c->old_name && strcmp(c->old_name, c->link_name))
        remove_old_link(ctx, p->path, c->old_name);
    if (c->follow) {
        attach_follow_switch(ctx, p->path, c->follow_old_root, c->follow_bin);
        fs_crash_point("link-followed");
    }
    return db_generation_settle(ctx, p->path, number, "ok");
}

/* ---- recovery -------------------------------------------------------------------------- */

/* Did the change of a pending generation reach the disk? */
static bool pending_happened(cdm_ctx *ctx, const struct db_generation_ref *g)
{
    char *link_path = path_join(g->project, g->link_name);
    enum link_kind kind = LINK_FOREIGN;
    char *target = NULL;
    link_read(ctx, link_path, &kind, &target);
    bool happened = g->install_id
                        ? kind == LINK_OURS && store_path_is_install(ctx, target, g->install_id)
                        : kind == LINK_NONE;
    if (g->install_id && g->view) {
        char *view = store_view_path(ctx, g->view);
        happened = kind == LINK_OURS && (!strcmp(target, view) || fs_same_path(target, view));
        free(view);
    }
    /* recorded without a link once none could be made: the record is the change */
    if (g->install_id && g->no_link)
        happened = kind == LINK_NONE;
    free(target);
    free(link_path);
    return happened;
}

/* The folder a generation's link leads to: its view, else its install (malloc'd; NULL for
 * an unlink or no such generation). */
static char *generation_target(cdm_ctx *ctx, const char *project, long long number)
{
    struct cdm_generation g;
    if (number < 1 || db_generation_get(ctx, project, number, &g) || !*g.install_id)
        return NULL;
    return *g.view ? store_view_path(ctx, g.view) : upstream_install_path(ctx, g.install_id);
}

/* A change killed after its switch, before the attached environments followed it: their
 * hard links (Windows) still name the files of the generation before; they follow now, as
 * the change would have made them. */
static void follow_settled(cdm_ctx *ctx, const struct db_generation_ref *g)
{
    char *old_root = generation_target(ctx, g->project, g->number - 1);
    struct cdm_install_info in;
    if (old_root && g->install_id && db_install_find(ctx, g->install_id, &in) == CDM_OK)
        attach_follow_switch(ctx, g->project, old_root, g->view ? NULL : in.bin_dir);
    free(old_root);
}

/* Settle one pending generation by what the disk shows. */
static int settle(cdm_ctx *ctx, const struct db_generation_ref *g, void *arg)
{
    unsigned *done = arg;
    bool there = !cdm_project_gone(g->project);
    bool happened = there && pending_happened(ctx, g);
    int rc = db_generation_settle(ctx, g->project, g->number, happened ? "ok" : NULL);
    if (ctx->options.verbose)
        cdm_note(ctx, "settled the interrupted link change of '%s' (generation %lld: %s)",
                 g->project, g->number, happened ? "done" : "undone");
    if (there) {
        project_clean_leftovers(ctx, g->project, g->link_name);
        struct cdm_project p;
        /* The pin follows the link; a failure here is reported by the next link. */
        if (!rc && happened && g->install_id && cdm_project_open(ctx, g->project, &p) == CDM_OK)
            project_pin_write(ctx, &p, g->install_id);
        if (!rc && happened)
            follow_settled(ctx, g);
    }
    (*done)++;
    return rc;
}

/* ---- installs -------------------------------------------------------------------------- */

int journal_link_recover(cdm_ctx *ctx, unsigned *done)
{
    return db_generation_each_pending(ctx, settle, done);
}
