/*
 * Changing a project's link: link, unlink, rollback. Each command decides where the link
 * goes (the install, a view of it with a toolkit or a second major) and checks the attached
 * environments; the change itself is a generation written by the link protocol
 * (journal_link.c: its steps, and the recovery of one a kill interrupted).
 */
#include "links.h"
#include "links_dest.h"
#include "attach_switch.h"
#include "db.h"
#include "gitignore.h"
#include "journal_link.h"
#include "project.h"
#include "sources.h"
#include "store.h"
#include "store_paths.h"
#include "toolkit.h"
#include "view.h"
#include "platform/fs.h"
#include "platform/fs_volume.h"
#include "platform/link.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

/*
 * Whether the pin file may stay as it is with install in linked: it names in, as the user
 * wrote it ("8.8" for 8.8.0.121-cuda11 stays "8.8", so a committed pin is not rewritten),
 * unless exact asks for the install's full id.
 */
static bool pin_keeps(const struct cdm_project *p, const struct cdm_install_info *in, bool exact)
{
    if (!p->has_pin)
        return false;
    if (!strcmp(p->pinned_id, in->id))
        return true;
    struct version_spec spec;
    struct version v;
    return !exact && version_spec_parse(p->pinned_id, &spec) && version_parse(in->version, &v) &&
           version_spec_matches(&spec, &v, in->cuda);
}

/*
 * Point p's link, named link_name, at d (d->in NULL: remove the link), recorded as a
 * generation with action (journal_link.h); the pin file is written unless it names the
 * install already (pin_keeps). When the project's link had another name (old_name, from its
 * history), that old link is removed once the new one stands.
 */
/* The attached environments' follow of a switch (attach_switch.h): old_root, where the link
 * led; bin, the new target's DLL folder. */
struct follow {
    const char *old_root;
    const char *bin;
};

static int apply(cdm_ctx *ctx, const struct cdm_project *p, const char *old_name,
                 const char *link_name, const struct dest *d, const char *action, bool pin_exact,
                 const struct follow *follow)
{
    const struct cdm_install_info *in = d->in;
    struct link_change change = {
        .project = p,
        .old_name = old_name,
        .link_name = link_name,
        .install_id = in ? in->id : NULL,
        .target = d->path,
        .view = {d->tk.version, d->tk.real, d->view},
        .action = action,
        .pin = in && !pin_keeps(p, in, pin_exact) ? in->id : NULL,
        .follow = in && follow,
        .follow_old_root = follow ? follow->old_root : NULL,
        .follow_bin = follow ? follow->bin : NULL,
    };
    return journal_link_change(ctx, &change);
}

/*
 * Open the store with access and read the project in dir (NULL: the nearest) and its
 * current generation. A change looks first (STORE_SETTLED: a dry run stops there) to learn
 * whether it needs the store's lock (a change that builds a toolkit's view in the store:
 * STORE_WRITE) or only the user's state's (STORE_STATE: the store only read, it may be a
 * read-only shared one), then opens again that way and reads the project again under the
 * locks (another cdm may have changed it since the look). The look holds no lock, so the
 * locks are taken in the writers' order; the index it opened is kept (store_open), so a
 * change opens the store once. A change settles the interrupted link changes and attaches
 * (a switch follows the attached environments), never an install: that is for the
 * commands about installs.
 */
static int open_for_change(cdm_ctx *ctx, const char *dir, struct cdm_project *p,
                           struct cdm_generation *cur, bool *has_cur, enum store_access access)
{
    int rc = store_open(ctx, access, RECOVER_STATE);
    if (rc || (rc = dir ? cdm_project_open(ctx, dir, p) : cdm_project_find(ctx, NULL, p)))
        return rc;
    rc = db_generation_get(ctx, p->path, 0, cur);
    *has_cur = rc == CDM_OK;
    return rc == CDM_ENOTFOUND ? CDM_OK : rc;
}

/* A change touches the install it links: when a kill interrupted that one's install or
 * removal, the look (holding no lock yet) settles the interrupted installs first. A change
 * to another install leaves them to the commands about installs. */
static void settle_target(cdm_ctx *ctx, const char *spec, int cuda)
{
    struct saved_error saved = error_save(ctx); /* the change resolves again and tells */
    if (spec && store_spec_interrupted(ctx, spec, cuda))
        store_open(ctx, STORE_SETTLED, RECOVER_INSTALLS);
    error_restore(ctx, &saved);
}

static int finish(cdm_ctx *ctx, const char *path, bool changed, struct cdm_link_result *result)
{
    result->changed = changed;
    return cdm_which(ctx, path, &result->now);
}

/* What a dry run reports: the project as it is, with the install it would link (id, ""
 * for none) in place of its own. */
static int dry_finish(cdm_ctx *ctx, const char *path, bool changed, const char *id,
                      struct cdm_link_result *result)
{
    int rc = finish(ctx, path, changed, result);
    result->dry_run = true;
    if (!rc && !copy_str(result->now.project.linked_id, sizeof(result->now.project.linked_id), id))
        rc = cdm_error_set(ctx, CDM_EINVAL, "the install id '%s' is longer than cdm keeps", id);
    return rc;
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

/* Unlinking never deletes what cdm did not make; then says what happens or what to do. */
static int refuse_unlink(cdm_ctx *ctx, const struct cdm_project *p, const char *then)
{
    return cdm_error_set(ctx, CDM_EEXISTS,
                         "cannot unlink '%s': it is a real folder or file, not a link cdm made; %s",
                         p->link_path, then);
}

/* A project inside the store would be listed, removed and gc'd with it; a link whose path
 * holds the store would put the store out of reach when switched. */
static int refuse_nested(cdm_ctx *ctx, const struct cdm_project *p, const char *link_path)
{
    char *root = fs_realpath(ctx->root);
    const char *store = root ? root : ctx->root;
    int rc = CDM_OK;
    if (path_within(p->path, store))
        rc = cdm_error_set(ctx, CDM_EINVAL,
                           "cannot link '%s': it is inside the store '%s'; a project lives "
                           "outside it",
                           p->path, store);
    else if (path_within(ctx->root, link_path) || path_within(store, link_path))
        rc = cdm_error_set(ctx, CDM_EINVAL,
                           "cannot link '%s': the store '%s' is reached through that path; "
                           "pass another --name, or move the store",
                           link_path, ctx->root);
    free(root);
    return rc;
}

/* A project recorded without a link, linked again to the same install: whether a link
 * still cannot be made (else it is made now, and the change is recorded as any other). */
static bool still_no_link(cdm_ctx *ctx, const struct cdm_project *p, const char *name,
                          const struct dest *d, bool dry_run)
{
    if (dry_run)
        return true;
    char *link_path = path_join(p->path, name);
    bool none = false;
    if (link_set_or_none(ctx, link_path, d->path, &none) != CDM_OK && !none)
        none = false; /* another failure: the change below meets it again and says it */
    free(link_path);
    return none;
}

/* Sync clients (OneDrive, and the others that use cloud placeholders) do not follow a
 * junction as a link: they may upload the store through it, or delete through it, and a
 * placeholder's files vanish offline. Said at each link change, and by the doctor. */
static void warn_cloud(cdm_ctx *ctx, const char *project)
{
    char *why = fs_cloud_sync(project);
    if (why)
        cdm_warn(ctx,
                 "'%s' is %s: sync clients do not follow junctions and may upload or "
                 "delete the store's files through the link, and cloud placeholders make "
                 "files vanish offline; move the project out of the synced folder",
                 project, why);
    free(why);
}

/* The link is right already: only the pin may need writing (absent, or --pin-exact). */
static int finish_unchanged(cdm_ctx *ctx, const struct cdm_link_request *req,
                            const struct cdm_project *p, const struct cdm_install_info *in,
                            struct cdm_link_result *result)
{
    bool write_pin = !pin_keeps(p, in, req->pin_exact);
    int rc;
    if (write_pin && !req->dry_run && (rc = project_pin_write(ctx, p, in->id)))
        return rc;
    return req->dry_run ? dry_finish(ctx, p->path, write_pin, in->id, result)
                        : finish(ctx, p->path, write_pin, result);
}

/* Open the store and the project for a link change: a first look, then again in the mode
 * the change needs (the store's lock too when a view is to be built: a toolkit's, or a
 * pair's for a second cuDNN major). */
static int open_link_change(cdm_ctx *ctx, const struct cdm_link_request *req, struct cdm_project *p,
                            struct cdm_generation *cur, bool *has_cur)
{
    int rc = open_for_change(ctx, req->project, p, cur, has_cur, STORE_SETTLED);
    if (!rc)
        settle_target(ctx, req->spec ? req->spec : p->has_pin ? p->pinned_id : NULL, req->cuda);
    if (rc || req->dry_run)
        return rc;
    char second[64];
    bool view = req->toolkit ? strcmp(req->toolkit, "none") != 0 : *has_cur && *cur->toolkit_path;
    view = view || req->also || (*has_cur && pair_view_also(cur->view, second, sizeof(second)));
    return open_for_change(ctx, req->project, p, cur, has_cur, view ? STORE_WRITE : STORE_STATE);
}

/* The version a link is asked for: the request's, else the project's pin file (which must
 * hold one); the link's name checked on the way. */
static int request_spec(cdm_ctx *ctx, const struct cdm_link_request *req,
                        const struct cdm_project *p, const char **spec)
{
    if (req->name && !project_link_name_valid(req->name))
        return cdm_error_set(ctx, CDM_EINVAL,
                             "'%s' cannot name a link: %s; give a plain file name such as "
                             "cuda_link",
                             req->name, config_link_name_problem(req->name));
    *spec = req->spec;
    if (*spec)
        return CDM_OK;
    if (!p->has_pin)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "no version to link in '%s': give one ('cdm link %s 9.1') or "
                             "commit a %s pin file",
                             p->path, req->project ? req->project : ".", CDM_PIN_FILE);
    struct version_spec parsed;
    if (!version_spec_parse(p->pinned_id, &parsed)) {
        char *pin = path_join(p->path, CDM_PIN_FILE);
        int rc = cdm_error_set(ctx, CDM_ECONFIG,
                               "the pin file '%s' says '%s', which is not a version; write one "
                               "such as 9.1 or 9.1.0.70-cuda12 there, or give one: 'cdm link "
                               "%s 9.1'",
                               pin, p->pinned_id, req->project ? req->project : ".");
        free(pin);
        return rc;
    }
    *spec = p->pinned_id;
    return CDM_OK;
}

/* What a link of the request's install (in, resolved) needs before anything changes: the
 * install there, its place among the project's majors (in becomes the link's install, also
 * the second), the machine able to run both, the toolkit (tk) and the tables, and the
 * attached environments willing to follow. */
static int check_change(cdm_ctx *ctx, const struct cdm_link_request *req, const char *project,
                        const struct cdm_generation *cur, struct cdm_install_info *in,
                        struct cdm_install_info *also, struct cdm_toolkit *tk)
{
    char *why = xasprintf("cannot link '%s' to %s", project, in->id);
    int rc = link_installed(ctx, in->id, why, in);
    free(why);
    if (rc || (rc = pair_settle(ctx, project, cur, req->also, req->only, in, also)) ||
        (rc = cdm_machine_check_install(ctx, in, req->force, "linking")) ||
        (*also->id && (rc = cdm_machine_check_install(ctx, also, req->force, "linking"))) ||
        (rc = choose_toolkit(ctx, project, req->toolkit, cur, tk)))
        return rc;
    if (*also->id && *tk->version)
        return cdm_error_set(ctx, CDM_EINVAL,
                             "cannot link '%s' to %s beside %s with the CUDA %s toolkit: a link "
                             "holds a toolkit or a second cuDNN major, not both yet; link with "
                             "--toolkit none, or --only",
                             project, in->id, also->id, tk->version);
    if ((*tk->version && (rc = check_pair(ctx, project, in, tk, req->force))) ||
        (rc = attach_check_switch(ctx, project, in, also, req->force)))
        return rc;
    return CDM_OK;
}

int cdm_link(cdm_ctx *ctx, const struct cdm_link_request *req, struct cdm_link_result *result)
{
    memset(result, 0, sizeof(*result));
    struct cdm_project p;
    struct cdm_generation cur;
    bool has_cur = false;
    const char *spec = NULL;
    int rc = open_link_change(ctx, req, &p, &cur, &has_cur);
    if (rc || (rc = request_spec(ctx, req, &p, &spec)))
        return rc;
    const char *name = req->name ? req->name : p.link_name;
    struct cdm_install_info in;
    if ((rc = cdm_resolve(ctx, spec, req->cuda, &in))) {
        if (rc == CDM_ENOTFOUND)
            sources_hint(ctx, spec);
        return rc;
    }
    struct cdm_install_info also;
    struct cdm_toolkit tk;
    if ((rc = check_change(ctx, req, p.path, has_cur ? &cur : NULL, &in, &also, &tk)))
        return rc;
    COPY_STR_ARRAY(result->previous_id, p.linked_id);
    char *link_path = path_join(p.path, name);
    enum link_kind kind;
    char *target = NULL;
    rc = refuse_nested(ctx, &p, link_path);
    if (!rc)
        rc = link_read(ctx, link_path, &kind, &target);
    if (!rc && kind == LINK_FOREIGN)
        rc = refuse_foreign(ctx, link_path);
    struct dest d = {0};
    if (!rc && req->dry_run && (*tk.version || *also.id)) {
        dry_dest(ctx, &in, &also, &tk, &d);
    } else if (!rc) {
        rc = make_dest(ctx, &in, &also, &tk, NULL, &d);
    }
    bool same_record = !rc && has_cur && !strcmp(cur.install_id, in.id) &&
                       !strcmp(cur.link_name, name) && !strcmp(cur.view, d.view ? d.view : "") &&
                       !strcmp(cur.toolkit_path, tk.real);
    bool same =
        same_record &&
        ((kind == LINK_OURS && fs_same_path(target, d.path)) ||
         (kind == LINK_NONE && *cur.no_link && still_no_link(ctx, &p, name, &d, req->dry_run)));
    bool created = !rc && kind == LINK_NONE;
    /* where the link led: the attached environments' hard links name its files */
    char *old_root = !rc && kind == LINK_OURS ? target : NULL;
    if (!old_root)
        free(target);
    free(link_path);
    if (rc || same)
        dest_free(&d);
    if (rc || same)
        free(old_root);
    if (rc)
        return rc;
    if (same)
        return finish_unchanged(ctx, req, &p, &in, result);
    if (req->dry_run) {
        dest_free(&d);
        free(old_root);
        return dry_finish(ctx, p.path, true, in.id, result);
    }
    warn_cloud(ctx, p.path);
    /* The old name is only ours to remove when the history says cdm made it. */
    char bin[16];
    dest_bin_dir(&d, bin, sizeof(bin));
    rc = apply(ctx, &p, has_cur ? cur.link_name : NULL, name, &d, "link", req->pin_exact,
               &(struct follow){old_root, bin});
    dest_free(&d);
    free(old_root);
    if (rc)
        return rc;
    if (created) {
        char *top = git_worktree_of(p.path);
        result->unignored = top && !gitignore_ignores(top, p.path, name);
        free(top);
    }
    return finish(ctx, p.path, true, result);
}

int cdm_unlink(cdm_ctx *ctx, const char *project, bool forget, bool dry_run,
               struct cdm_link_result *result)
{
    memset(result, 0, sizeof(*result));
    struct cdm_project p;
    struct cdm_generation cur;
    bool has_cur = false;
    int rc =
        open_for_change(ctx, project, &p, &cur, &has_cur, dry_run ? STORE_SETTLED : STORE_STATE);
    if (rc)
        return rc;
    if (p.link_foreign)
        return refuse_unlink(ctx, &p, "it was left alone");
    COPY_STR_ARRAY(result->previous_id, p.linked_id);
    bool changed = false;
    if (dry_run)
        return dry_finish(ctx, p.path,
                          p.has_link || (has_cur && cur.install_id[0]) || (forget && p.has_pin), "",
                          result);
    /* A link removed by hand while the index says linked: record the unlink all the same. */
    if (p.has_link || (has_cur && cur.install_id[0])) {
        if ((rc = attach_check_switch(ctx, p.path, NULL, NULL, false)))
            return rc;
        if ((rc = apply(ctx, &p, NULL, p.link_name, &(struct dest){0}, "unlink", false, NULL)))
            return rc;
        changed = true;
    }
    if (forget && p.has_pin) {
        if ((rc = project_pin_remove(ctx, &p)))
            return rc;
        changed = true;
    }
    return finish(ctx, p.path, changed, result);
}

int cdm_rollback(cdm_ctx *ctx, const char *project, long long to, bool force,
                 struct cdm_link_result *result)
{
    memset(result, 0, sizeof(*result));
    struct cdm_project p;
    struct cdm_generation cur, back;
    bool has_cur = false;
    int rc = open_for_change(ctx, project, &p, &cur, &has_cur, STORE_SETTLED);
    if (!rc && has_cur) {
        /* the store's lock too when the generation rolled back to has a toolkit's view */
        bool found = db_generation_get(ctx, p.path, to ? to : cur.number - 1, &back) == CDM_OK;
        if (found && back.install_id[0])
            settle_target(ctx, back.install_id, 0);
        char second[64];
        bool view =
            found && (*back.toolkit_path || pair_view_also(back.view, second, sizeof(second)));
        rc = open_for_change(ctx, project, &p, &cur, &has_cur, view ? STORE_WRITE : STORE_STATE);
    }
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
                             p.path, cur.number, project ? project : "");
    rc = db_generation_get(ctx, p.path, number, &back);
    if (rc == CDM_ENOTFOUND)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot roll back '%s': it has no generation %lld; see 'cdm "
                             "history %s'",
                             p.path, number, project ? project : "");
    if (rc)
        return rc;
    COPY_STR_ARRAY(result->previous_id, p.linked_id);
    struct cdm_install_info in;
    struct dest d = {0};
    if (back.install_id[0]) {
        char *why = xasprintf("cannot roll back '%s' to generation %lld", p.path, number);
        rc = link_installed(ctx, back.install_id, why, &in);
        free(why);
        if (rc)
            return rc;
    }
    struct cdm_install_info also;
    if ((rc = generation_also(ctx, p.path, number, &back, &also)) ||
        (rc = attach_check_switch(ctx, p.path, back.install_id[0] ? &in : NULL, &also, force)))
        return rc;
    if (p.link_foreign)
        return refuse_foreign(ctx, p.link_path);
    /* The generation's toolkit as it recorded it; its view is built again when cdm gc
     * removed it since. */
    struct cdm_toolkit tk = {0};
    COPY_STR_ARRAY(tk.version, back.toolkit);
    COPY_STR_ARRAY(tk.real, back.toolkit_path);
    COPY_STR_ARRAY(tk.path, back.toolkit_path);
    if (back.install_id[0] && (rc = make_dest(ctx, &in, &also, &tk, back.view, &d)))
        return rc;
    enum link_kind kind = LINK_NONE;
    char *old_root = NULL;
    if (link_read(ctx, p.link_path, &kind, &old_root) || kind != LINK_OURS) {
        free(old_root);
        old_root = NULL;
    }
    /* Generation `number` without a link was an unlink: rolling back to it unlinks. */
    char bin[16];
    dest_bin_dir(&d, bin, sizeof(bin));
    rc = apply(ctx, &p, NULL, p.link_name, &d, "rollback", false, &(struct follow){old_root, bin});
    dest_free(&d);
    free(old_root);
    if (rc)
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
        int rc = db_generation_get(ctx, project, 0, &cur);
        if (!rc)
            rc = db_generation_add(ctx, project, NULL, "unlink", cur.link_name, "ok", NULL);
        return rc;
    }
    int rc = cdm_project_open(ctx, project, &p);
    if (rc)
        return rc;
    if (p.link_foreign)
        return refuse_unlink(ctx, &p, "move it away, then remove again");
    return apply(ctx, &p, NULL, p.link_name, &(struct dest){0}, "unlink", false, NULL);
}
