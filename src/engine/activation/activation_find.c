/* Finding what to activate: a project, its link, the install it points to. */
#include "db.h"
#include "upstream.h"
#include "internal.h"
#include "activate_toolkit.h"
#include "default.h"
#include "project.h"
#include "store.h"
#include "store_paths.h"
#include "userstate.h"
#include "platform/fs.h"
#include "view.h"
#include "platform/link.h"

#include <stdlib.h>
#include <string.h>

static int no_link(cdm_ctx *ctx, const struct cdm_project *p)
{
    if (p->link_foreign)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot activate '%s': '%s' is not a link cdm made; move it away "
                             "and run 'cdm link %s VERSION'",
                             p->path, p->link_path, p->path);
    if (p->has_pin)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot activate '%s': it pins %s but has no '%s' link; run "
                             "'cdm link %s'",
                             p->path, p->pinned_id, p->link_name, p->path);
    return cdm_error_set(ctx, CDM_ENOTFOUND,
                         "cannot activate '%s': it has no '%s' link; run 'cdm link %s VERSION'",
                         p->path, p->link_name, p->path);
}

/* The install p links to, in place. The prompt hook runs this at every prompt: when the
 * record says "ok" and the folder is there (one stat) nothing else is read; only then is
 * work a kill interrupted finished, or found under way in another cdm. */
static int installed(cdm_ctx *ctx, const struct cdm_project *p, struct cdm_install_info *in)
{
    int rc = db_install_find(ctx, p->linked_id, in);
    if (!rc)
        store_install_state(ctx, in);
    if (!rc && in->state != CDM_INSTALL_OK &&
        !(rc = store_open(ctx, STORE_SETTLED, RECOVER_INSTALLS)) &&
        !(rc = db_install_find(ctx, p->linked_id, in)))
        store_install_state(ctx, in);
    if (rc == CDM_ENOTFOUND)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot activate '%s': it links to %s, which is not installed; run "
                             "'cdm install %s' or 'cdm link %s VERSION'",
                             p->path, p->linked_id, p->linked_id, p->path);
    if (rc || in->state == CDM_INSTALL_OK)
        return rc;
    if (in->state == CDM_INSTALL_MISSING)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot activate '%s': the folder '%s' of %s is missing; run 'cdm "
                             "install --force ARCHIVE' to put it back, or 'cdm link %s VERSION'",
                             p->path, in->path, in->id, p->path);
    return cdm_error_set(ctx, CDM_EBUSY,
                         "cannot activate '%s' yet: another cdm is %s %s; try again when it "
                         "is done",
                         p->path, in->state == CDM_INSTALL_REMOVING ? "removing" : "installing",
                         in->id);
}

/* No project from dir upwards: the user's default, when one is set. Activation then
 * goes straight to the install's folder, and names the user's state folder as its
 * project (CDM_PROJECT), which no project search finds. */
static int default_activation(cdm_ctx *ctx, const struct default_choice *c,
                              struct cdm_activation *out)
{
    char *state = userstate_dir(ctx);
    struct cdm_project p = {.has_link = true};
    int rc = copy_path(ctx, p.path, sizeof(p.path), state);
    COPY_STR_ARRAY(p.linked_id, c->id);
    free(state);
    if (rc)
        return rc;
    if (strcmp(c->root, cdm_root(ctx)))
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot activate the default %s: it is in the store '%s', not in "
                             "'%s'; pass --root %s, or run 'cdm default VERSION'",
                             c->id, c->root, cdm_root(ctx), c->root);
    struct cdm_install_info in;
    rc = store_open(ctx, STORE_READ, 0);
    if (!rc && db_install_find(ctx, c->id, &in) == CDM_ENOTFOUND)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot activate the default %s: it is not installed any more; run "
                             "'cdm default VERSION' to choose another, or 'cdm install %s'",
                             c->id, c->id);
    if (rc || (rc = installed(ctx, &p, &in)))
        return rc;
    COPY_STR_ARRAY(out->project, p.path);
    COPY_STR_ARRAY(out->link_path, in.path);
    COPY_STR_ARRAY(out->target, in.path);
    COPY_STR_ARRAY(out->id, in.id);
    COPY_STR_ARRAY(out->bin_dir, in.bin_dir);
    COPY_STR_ARRAY(out->lib_dir, in.lib_dir);
    activation_keep_toolkit(ctx, &in, out);
    return CDM_OK;
}

/* What the configuration adds to every activation; --redirect may ask for more. */
static void configured(cdm_ctx *ctx, struct cdm_activation *out)
{
    memset(out, 0, sizeof(*out));
    out->build_paths = ctx->config.activate_build_paths;
    out->redirect = ctx->config.activate_redirect ? CDM_REDIRECT_WANTED : CDM_REDIRECT_NO;
}

/* The user's default (cdm_default) as cdm_activation_find gives it outside projects;
 * out->id is "" when none is set. */
static int default_or_none(cdm_ctx *ctx, struct cdm_activation *out)
{
    configured(ctx, out);
    struct default_choice c;
    int rc = default_read(ctx, &c);
    if (rc == CDM_ENOTFOUND)
        return CDM_OK;
    return rc ? rc : default_activation(ctx, &c, out);
}

/* The activation of project p, read once. */
static int project_activation(cdm_ctx *ctx, const struct cdm_project *p,
                              struct cdm_activation *out);

int cdm_activation_find(cdm_ctx *ctx, const char *dir, bool search, struct cdm_activation *out)
{
    configured(ctx, out);
    struct cdm_project p;
    int rc = search || !dir ? cdm_project_find(ctx, dir, &p) : cdm_project_open(ctx, dir, &p);
    if (rc == CDM_ENOTFOUND && !dir) {
        struct default_choice c;
        int drc = default_read(ctx, &c);
        if (drc == CDM_ENOTFOUND) {
            return cdm_error_append(ctx, rc,
                                    "; or choose a version for outside projects with 'cdm "
                                    "default VERSION'");
        }
        return drc ? drc : default_activation(ctx, &c, out);
    }
    return rc ? rc : project_activation(ctx, &p, out);
}

static int project_activation(cdm_ctx *ctx, const struct cdm_project *p, struct cdm_activation *out)
{
    /* Without a link because none can be made there, activation points at the store's
     * folder itself, as the default's does (link_path the folder). */
    if (!p->has_link && !*p->no_link)
        return no_link(ctx, p);
    if (!*p->linked_id)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot activate '%s': its link points to '%s', outside the store "
                             "'%s'; run 'cdm link %s VERSION' (or pass that store's --root)",
                             p->path, p->target, cdm_root(ctx), p->path);
    struct cdm_install_info in;
    int rc;
    if ((rc = store_open(ctx, STORE_READ, 0)) || (rc = installed(ctx, p, &in)))
        return rc;
    COPY_STR_ARRAY(out->project, p->path);
    if (*p->no_link)
        COPY_STR_ARRAY(out->link_path, p->target);
    else
        COPY_STR_ARRAY(out->link_path, p->link_path);
    COPY_STR_ARRAY(out->target, p->target);
    COPY_STR_ARRAY(out->id, in.id);
    COPY_STR_ARRAY(out->bin_dir, in.bin_dir);
    COPY_STR_ARRAY(out->lib_dir, in.lib_dir);
    if (*p->view) {
        /* The folders activation puts on the path lists are the view's (the toolkit's). */
        view_toolkit_version(p->view, out->toolkit, sizeof(out->toolkit));
        struct view_dirs d = view_dirs(p->target, fs_platform_is_windows(in.platform));
        COPY_STR_ARRAY(out->lib_dir, d.lib);
        COPY_STR_ARRAY(out->bin_dir, d.bin);
    }
    activation_keep_toolkit(ctx, &in, out);
    return CDM_OK;
}

/* The link an activation's path entry goes through: <project>/<link name> of the entry
 * <project>/<link name>/<lib folder> (malloc'd); NULL when the entry is not below project. */
static char *entry_link(const char *project, const char *entry)
{
    size_t n = strlen(project);
    if (!path_within(entry, project) || !entry[n] || !entry[n + 1])
        return NULL;
    const char *name = entry + n + 1;
    /* the environment's text: only a plain link name leads to a link of the project's */
    char *link_name = xasprintf("%.*s", (int)strcspn(name, "/\\"), name);
    bool plain = !config_link_name_problem(link_name);
    free(link_name);
    return plain ? xasprintf("%.*s", (int)(name - entry + strcspn(name, "/\\")), entry) : NULL;
}

/* Outside any project: the default is active (CDM_PROJECT the state folder) and is still
 * the user's default, its path entry inside the install's folder. */
static bool default_unchanged(cdm_ctx *ctx, const char *project, const char *active,
                              const char *entry)
{
    struct default_choice c;
    char *state = userstate_dir(ctx);
    bool same = !strcmp(project, state) && default_read(ctx, &c) == CDM_OK &&
                !strcmp(c.id, active) && !strcmp(c.root, cdm_root(ctx));
    if (same) {
        char *dir = path_join(c.root, c.id);
        same = path_within(entry, dir);
        free(dir);
    }
    free(state);
    return same;
}

/*
 * Whether the activation this process's environment holds (CDM_PROJECT, CDM_ACTIVE,
 * CDM_PATH_ENTRY) is still that of near, the nearest project (NULL: none, so the default),
 * its link pointing at the same install. Opens no index: the prompt hooks call `cdm
 * activate --auto` at every prompt, so this answers the common case, nothing changed, from
 * the environment and the file system alone: the caller's walk up to near (a stat per
 * folder; none nearer than the active project may hold a link or pin) and one readlink of
 * the link that CDM_PATH_ENTRY goes through (<project>/<link name>/<lib folder>).
 */
static bool unchanged_at(cdm_ctx *ctx, const char *near)
{
    char *project = fs_getenv("CDM_PROJECT"), *active = fs_getenv("CDM_ACTIVE");
    char *entry = fs_getenv("CDM_PATH_ENTRY");
    char *link_path = NULL, *target = NULL;
    bool same = false;
    if (!project || !active || !entry || !*project || !*active)
        goto out;
    if (!near) {
        same = default_unchanged(ctx, project, active, entry);
        goto out;
    }
    if (strcmp(near, project) || !(link_path = entry_link(project, entry)))
        goto out;
    enum link_kind kind;
    if (link_read(ctx, link_path, &kind, &target) == CDM_OK && kind == LINK_OURS) {
        /* The same install, through a toolkit's view exactly when one is active (a pair
         * view's second major changes no variable: the paths go through the link). A
         * toolkit kept beside a link without one (toolkit_kept.c) is not decided here:
         * the plan compares CUDA_PATH. */
        char id[64], tk[64], *home = fs_getenv("CDM_SAVED_CUDA_HOME");
        view_toolkit_version(path_basename(target), tk, sizeof(tk));
        bool view = *tk != '\0';
        same = store_install_of(ctx, target, id, sizeof(id)) && !strcmp(id, active) &&
               view == (home != NULL);
        free(home);
    }
out:
    free(target);
    free(link_path);
    free(entry);
    free(active);
    free(project);
    return same;
}

/* The link an activation in the environment goes through (<project>/<name> of
 * CDM_PATH_ENTRY) when that project is near; else near's link by the configured name. */
static char *hook_link(cdm_ctx *ctx, const char *near)
{
    char *project = fs_getenv("CDM_PROJECT"), *entry = fs_getenv("CDM_PATH_ENTRY");
    char *link = project && entry && !strcmp(project, near) ? entry_link(project, entry) : NULL;
    free(entry);
    free(project);
    return link ? link : path_join(near, cdm_link_name(ctx));
}

/* The file the configuration comes from, as cdm_ctx_new chose it. */
static char *config_file(const cdm_ctx *ctx)
{
    if (ctx->config.path)
        return fs_absolute(ctx->config.path);
    char *env = ctx->options.config_path ? NULL : fs_getenv("CDM_CONFIG");
    const char *given = ctx->options.config_path ? ctx->options.config_path : env;
    char *path = given && *given ? fs_absolute(given) : fs_default_config();
    free(env);
    if (given && *given && (!strcmp(given, "/dev/null") || !strcmp(given, "NUL")))
        *path = '\0';
    return path;
}

static void hook_copy(char *to, size_t size, const char *from)
{
    if (!copy_str(to, size, from ? from : ""))
        *to = '\0'; /* too long to hold: the hook then finds a difference and asks cdm */
}

void cdm_hook_state_files(cdm_ctx *ctx, struct cdm_hook_state *out)
{
    memset(out, 0, sizeof(*out));
    hook_copy(out->link_name, sizeof(out->link_name), cdm_link_name(ctx));
    char *file = default_file(ctx);
    hook_copy(out->default_file, sizeof(out->default_file), file);
    free(file);
    file = config_file(ctx);
    hook_copy(out->config, sizeof(out->config), file);
    free(file);
}

/* The hook's state for the folder dir (NULL: the current one), whose nearest project is
 * near (NULL: none); false when dir is no folder. */
static bool hook_state_at(cdm_ctx *ctx, const char *dir, const char *near,
                          struct cdm_hook_state *out)
{
    memset(out, 0, sizeof(*out));
    char *real = dir ? fs_realpath(dir) : fs_getcwd();
    if (!real)
        return false;
    cdm_hook_state_files(ctx, out);
    hook_copy(out->dir, sizeof(out->dir), real);
    free(real);
    if (!near)
        return true;
    char *link = hook_link(ctx, near), *target = NULL;
    enum link_kind kind;
    hook_copy(out->link, sizeof(out->link), link);
    if (link_read(ctx, link, &kind, &target) == CDM_OK && target) {
        /* A relative link leads from its own folder, not from the shell's. */
        bool absolute = strchr("/\\", target[0]) || (target[0] && target[1] == ':');
        char *abs = absolute ? xstrdup(target) : path_join(near, target);
        hook_copy(out->target, sizeof(out->target), abs);
        free(abs);
    }
    free(target);
    free(link);
    return true;
}

/* The hook's state after an activation: its link and target are the activation's. */
static void hook_state_follow(struct cdm_hook_state *st, const struct cdm_activation *a)
{
    bool default_one = !strcmp(a->link_path, a->target); /* no link: the install itself */
    hook_copy(st->link, sizeof(st->link), default_one ? "" : a->link_path);
    hook_copy(st->target, sizeof(st->target), default_one ? "" : a->target);
}

/* The project's activation, or the default's outside projects, as a plan for this process's
 * environment: empty when that activation is on already. A failure leaves its message in the
 * context and a plan that deactivates: the old cuDNN no longer belongs here. */
static int auto_plan(cdm_ctx *ctx, const char *near, struct cdm_auto_activation *out)
{
    struct cdm_project p;
    struct cdm_activation a;
    bool in_project = near && cdm_project_open(ctx, near, &p) == CDM_OK;
    if (in_project)
        configured(ctx, &a);
    int rc = in_project ? project_activation(ctx, &p, &a) : default_or_none(ctx, &a);
    if (!rc && !*a.id) { /* outside projects without a default: nothing to activate */
        cdm_deactivation_plan(&out->plan);
        return CDM_OK;
    }
    if (!rc && !cdm_activation_is_current(&a)) {
        rc = cdm_activation_plan(ctx, &a, &out->plan);
        out->said_always = rc != CDM_OK;
    }
    if (rc) {
        cdm_deactivation_plan(&out->plan);
        return rc;
    }
    if (in_project && out->has_state)
        hook_state_follow(&out->state, &a); /* the link just read, whichever name it has */
    return CDM_OK;
}

int cdm_activation_auto(cdm_ctx *ctx, const char *dir, bool hook_state,
                        struct cdm_auto_activation *out)
{
    memset(out, 0, sizeof(*out));
    /* One walk up from dir, shared by the state, the check and the plan. The state is read
     * before deciding: what changes meanwhile differs from it at the next prompt. */
    char *near = project_nearest(ctx, dir);
    out->has_state = hook_state && hook_state_at(ctx, dir, near, &out->state);
    out->unchanged = unchanged_at(ctx, near);
    int rc = out->unchanged ? CDM_OK : auto_plan(ctx, near, out);
    free(near);
    return rc;
}
