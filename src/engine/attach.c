/*
 * cdm attach / cdm detach: a Python environment's cuDNN wheel folder follows a project.
 *
 * Attach, under the store lock, in four steps: record the attachment as "attaching"
 * (naming where the wheel's folder will go), move the folder there, put the link in its
 * place, mark the record "attached". Detach runs the other way: "detaching", remove the
 * link, move the folder back, "detached". A kill at any step leaves a record that
 * recovery (recover.c, run by the next command that writes) settles from what is on disk: a
 * link in place means the attach happened; otherwise the folder goes back where it was.
 * A rename is the only way the wheel's files move, so they come back byte for byte.
 */
#include "db.h"
#include "db_attach.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "pyenv.h"
#include "recover.h"
#include "store.h"
#include "store_paths.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

static bool host_windows(void)
{
    return str_starts_with(cdm_host_platform(), "windows");
}

/* The environment's own site-packages folder that holds the cuDNN wheel. */
static int find_wheel(cdm_ctx *ctx, const char *venv, char ***sites, char **folder,
                      struct py_dist *dist)
{
    size_t own = 0;
    *sites = py_site_packages(venv, &own);
    if (!own)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "'%s' is not a Python environment: it has no %s; give the folder "
                             "that holds pyvenv.cfg",
                             venv,
                             host_windows() ? "Lib\\site-packages" : "lib/python3.X/site-packages");
    for (size_t i = 0; i < own; i++)
        if (py_cudnn_wheel((*sites)[i], host_windows(), folder, dist))
            return CDM_OK;
    return cdm_error_set(ctx, CDM_ENOTFOUND,
                         "'%s' has no cuDNN wheel folder (site-packages%s): install the "
                         "nvidia-cudnn-cu12 or -cu13 wheel there (or the framework that pulls it "
                         "in), then attach",
                         venv, host_windows() ? "\\nvidia\\cudnn\\bin" : "/nvidia/cudnn/lib");
}

/* Would the environment's framework accept the install? why gets the reason when not. */
static bool suits(const struct py_requirement *req, const struct py_dist *wheel,
                  const struct cdm_install_info *in, char *why, size_t size)
{
    struct version v;
    if (!version_parse(in->version, &v) || v.count < 2)
        return true;
    struct py_requirement ref = *req;
    if (!ref.framework[0]) {
        /* no framework pins the wheel: the wheel pip installed is the reference */
        struct version w;
        if (!wheel->name[0] || !version_parse(wheel->version, &w) || w.count < 2)
            return true;
        snprintf(ref.framework, sizeof(ref.framework), "the wheel %s", wheel->name);
        ref.major = w.part[0];
        ref.minor = w.part[1];
        const char *cu = strstr(wheel->name, "_cu");
        ref.cuda = cu ? atoi(cu + 3) : 0;
    }
    const char *what = req->framework[0] ? "was built with" : "is";
    if (v.part[0] != ref.major)
        snprintf(why, size, "%s %s cuDNN %d.%d and %s is cuDNN %d, another major", ref.framework,
                 what, ref.major, ref.minor, in->id, v.part[0]);
    else if (v.part[1] < ref.minor)
        snprintf(why, size, "%s %s cuDNN %d.%d and %s is older (%d.%d)", ref.framework, what,
                 ref.major, ref.minor, in->id, v.part[0], v.part[1]);
    else if (ref.cuda && in->cuda && ref.cuda != in->cuda)
        snprintf(why, size, "%s %s the CUDA %d build of cuDNN and %s is built for CUDA %d",
                 ref.framework, what, ref.cuda, in->id, in->cuda);
    else
        return true;
    return false;
}

static void fill_result(struct cdm_attach_result *out, const struct db_attachment *a)
{
    copy_str(out->venv, sizeof(out->venv), a->venv);
    copy_str(out->folder, sizeof(out->folder), a->folder);
    copy_str(out->target, sizeof(out->target), a->target);
    copy_str(out->original, sizeof(out->original), a->original);
    copy_str(out->project, sizeof(out->project), a->project);
    copy_str(out->install_id, sizeof(out->install_id), a->install_id);
    copy_str(out->wheel, sizeof(out->wheel), a->wheel);
}

/* The link target of a project: <project>/<link>/<lib_dir> (bin_dir on Windows). */
static char *project_target(const struct cdm_activation *act)
{
    const char *sub = host_windows() ? act->bin_dir : act->lib_dir;
    char *target = *sub ? path_join(act->link_path, sub) : xstrdup(act->link_path);
    if (host_windows())
        for (char *p = target; *p; p++)
            if (*p == '/')
                *p = '\\';
    return target;
}

/* Move the wheel's folder aside: beside the user's state (.attached), else (another file
 * system) beside itself. The record names the place before the move, so recovery knows where to look. */
static int move_aside(cdm_ctx *ctx, struct db_attachment *a)
{
    char *dir = store_attached_dir(ctx, a->id);
    int rc = fs_mkdir_p(ctx, dir);
    if (!rc)
        rc = fs_rename(ctx, a->folder, a->original);
    if (!rc) {
        free(dir);
        return CDM_OK;
    }
    char *first = xstrdup(cdm_error_message(ctx));
    fs_remove_tree(ctx, dir);
    free(dir);
    char *parent = path_dirname(a->folder);
    char *name = xasprintf(".%s.cdm-original-%lld", path_basename(a->folder), a->id);
    char *beside = path_join(parent, name);
    copy_str(a->original, sizeof(a->original), beside);
    rc = db_attach_set_original(ctx, a->id, a->original);
    if (!rc && (rc = fs_rename(ctx, a->folder, a->original)))
        cdm_error_set(ctx, rc, "cannot move the wheel's folder aside: %s; and %s", first,
                      cdm_error_message(ctx));
    free(first);
    free(beside);
    free(name);
    free(parent);
    return rc;
}

int cdm_attach(cdm_ctx *ctx, const struct cdm_attach_request *req, struct cdm_attach_result *out)
{
    memset(out, 0, sizeof(*out));
    char **sites = NULL, *folder = NULL, *venv = NULL, *target = NULL;
    struct db_attachment *a = xcalloc(1, sizeof(*a));
    struct py_dist dist;
    int rc = store_open_state(ctx);
    if (rc)
        goto out;
    venv = fs_realpath(req->venv);
    if (!venv || fs_kind(venv) != FS_DIR) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "cannot attach '%s': no such folder", req->venv);
        goto out;
    }
    if ((rc = find_wheel(ctx, venv, &sites, &folder, &dist)))
        goto out;
    /* The project and its install come first, so that a refusal needs no link yet. */
    struct cdm_project proj;
    rc = req->project ? cdm_project_open(ctx, req->project, &proj)
                      : cdm_project_find(ctx, NULL, &proj);
    if (rc)
        goto out;
    const char *id = *proj.linked_id ? proj.linked_id : proj.pinned_id;
    struct cdm_install_info in;
    if (!*id || db_install_get(ctx, id, &in) != CDM_OK || in.state != CDM_INSTALL_OK) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cannot attach '%s' to '%s': the project uses no installed cuDNN "
                           "(%s); run 'cdm link %s VERSION'",
                           venv, proj.path, *id ? id : "no link, no pin file", proj.path);
        goto out;
    }
    if (strcmp(in.platform, cdm_host_platform())) {
        rc = cdm_error_set(ctx, CDM_EMISMATCH,
                           "cannot attach '%s' to '%s': it uses %s, an install for %s, and this "
                           "machine is %s",
                           venv, proj.path, in.id, in.platform, cdm_host_platform());
        goto out;
    }
    copy_str(out->venv, sizeof(out->venv), venv);
    copy_str(out->folder, sizeof(out->folder), folder);
    copy_str(out->project, sizeof(out->project), proj.path);
    copy_str(out->install_id, sizeof(out->install_id), in.id);
    if (dist.name[0])
        snprintf(out->wheel, sizeof(out->wheel), "%s %s", dist.name, dist.version);

    struct db_attachment cur;
    rc = db_attach_current(ctx, folder, &cur);
    if (rc == CDM_OK && !strcmp(cur.project, proj.path)) {
        fill_result(out, &cur);
        goto out; /* attached to this project already */
    }
    if (rc == CDM_OK) {
        rc = cdm_error_set(ctx, CDM_EBUSY,
                           "'%s' is attached to the project '%s'; run 'cdm detach %s' first", venv,
                           cur.project, venv);
        goto out;
    }
    if (rc != CDM_ENOTFOUND)
        goto out;
    enum link_kind kind;
    char *seen = NULL;
    if ((rc = link_read(ctx, folder, &kind, &seen)))
        goto out;
    free(seen);
    if (kind != LINK_FOREIGN) {
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot attach '%s': '%s' is already a link that cdm did not record; "
                           "put the wheel's folder back (pip install --force-reinstall the "
                           "nvidia-cudnn wheel), then attach",
                           venv, folder);
        goto out;
    }

    struct py_requirement pin;
    py_framework_requirement(sites, &pin);
    copy_str(out->framework, sizeof(out->framework), pin.framework);
    copy_str(out->requirement, sizeof(out->requirement), pin.text);
    char why[512];
    if (!suits(&pin, &dist, &in, why, sizeof(why))) {
        if (!req->force) {
            rc = cdm_error_set(ctx, CDM_EMISMATCH,
                               "cannot attach '%s' to '%s': %s%s%s%s; link the project to a "
                               "cuDNN the framework accepts, or pass --force",
                               venv, proj.path, why, pin.text[0] ? " (Requires-Dist: " : "",
                               pin.text, pin.text[0] ? ")" : "");
            goto out;
        }
        copy_str(out->overridden, sizeof(out->overridden), why);
    }
    /* the link goes through the project's own link, as activation's paths do */
    struct cdm_activation act;
    if ((rc = cdm_activation_find(ctx, proj.path, false, &act))) {
        char *why_not = xstrdup(cdm_error_message(ctx));
        cdm_error_set(ctx, rc, "cannot attach '%s': %s", venv, why_not);
        free(why_not);
        goto out;
    }
    target = project_target(&act);
    copy_str(out->target, sizeof(out->target), target);

    /* the change, in the order recovery expects */
    copy_str(a->venv, sizeof(a->venv), venv);
    copy_str(a->folder, sizeof(a->folder), folder);
    copy_str(a->project, sizeof(a->project), proj.path);
    copy_str(a->target, sizeof(a->target), target);
    copy_str(a->install_id, sizeof(a->install_id), in.id);
    copy_str(a->wheel, sizeof(a->wheel), out->wheel);
    copy_str(a->state, sizeof(a->state), "attaching");
    copy_str(a->original, sizeof(a->original), "");
    if ((rc = db_attach_insert(ctx, a)))
        goto out;
    char *dir = store_attached_dir(ctx, a->id);
    char *original = path_join(dir, path_basename(folder));
    copy_str(a->original, sizeof(a->original), original);
    free(original);
    free(dir);
    rc = db_attach_set_original(ctx, a->id, a->original);
    fs_crash_point("attach-recorded");
    if (rc || (rc = move_aside(ctx, a))) {
        char *why_failed = xstrdup(cdm_error_message(ctx));
        db_attach_delete(ctx, a->id);
        cdm_error_set(ctx, CDM_EIO, "%s", why_failed);
        free(why_failed);
        rc = CDM_EIO;
        goto out;
    }
    fs_crash_point("attach-moved");
    if ((rc = link_set(ctx, folder, target))) {
        char *why_failed = xstrdup(cdm_error_message(ctx));
        if (fs_rename(ctx, a->original, folder) == CDM_OK) {
            db_attach_delete(ctx, a->id);
            char *kept = path_dirname(a->original);
            if (str_starts_with(kept, cdm_root(ctx)))
                fs_remove_tree(ctx, kept);
            free(kept);
        }
        cdm_error_set(ctx, CDM_EIO, "%s", why_failed);
        free(why_failed);
        rc = CDM_EIO;
        goto out;
    }
    fs_crash_point("attach-linked");
    if ((rc = db_attach_set_state(ctx, a->id, "attached")))
        goto out;
    fill_result(out, a);
    out->changed = true;

out:
    strv_free(sites);
    free(folder);
    free(venv);
    free(target);
    free(a);
    return rc;
}

int cdm_detach(cdm_ctx *ctx, const char *venv_arg, struct cdm_attach_result *out)
{
    memset(out, 0, sizeof(*out));
    char **sites = NULL, *folder = NULL, *venv = NULL;
    struct db_attachment *a = xcalloc(1, sizeof(*a));
    struct py_dist dist;
    int rc = store_open_state(ctx);
    if (rc)
        goto out;
    venv = fs_realpath(venv_arg);
    if (!venv || fs_kind(venv) != FS_DIR) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "cannot detach '%s': no such folder", venv_arg);
        goto out;
    }
    if ((rc = find_wheel(ctx, venv, &sites, &folder, &dist)))
        goto out;
    copy_str(out->venv, sizeof(out->venv), venv);
    copy_str(out->folder, sizeof(out->folder), folder);
    rc = db_attach_current(ctx, folder, a);
    if (rc == CDM_ENOTFOUND) {
        enum link_kind kind;
        char *seen = NULL;
        rc = link_read(ctx, folder, &kind, &seen);
        free(seen);
        if (!rc && kind != LINK_FOREIGN)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "cannot detach '%s': '%s' is a link cdm has no record of; "
                               "remove it and reinstall the nvidia-cudnn wheel",
                               venv, folder);
        goto out; /* a real folder: not attached, nothing to do */
    }
    if (rc)
        goto out;
    fill_result(out, a);
    enum link_kind kind;
    char *seen = NULL;
    if ((rc = link_read(ctx, folder, &kind, &seen)))
        goto out;
    free(seen);
    if (kind != LINK_OURS) {
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot detach '%s': '%s' is no longer cdm's link; the wheel's own "
                           "folder is kept at '%s'",
                           venv, folder, a->original);
        goto out;
    }
    if (fs_kind(a->original) != FS_DIR) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cannot detach '%s': the wheel's own folder '%s' is gone; reinstall "
                           "the nvidia-cudnn wheel (pip install --force-reinstall) after "
                           "removing the link '%s'",
                           venv, a->original, folder);
        goto out;
    }
    if ((rc = db_attach_set_state(ctx, a->id, "detaching")))
        goto out;
    fs_crash_point("detach-recorded");
    if ((rc = link_remove(ctx, folder))) {
        db_attach_set_state(ctx, a->id, "attached");
        goto out;
    }
    fs_crash_point("detach-unlinked");
    if ((rc = fs_rename(ctx, a->original, folder)))
        goto out; /* recovery moves it back: the record says detaching */
    fs_sync_dir(folder);
    fs_crash_point("detach-moved");
    if ((rc = db_attach_set_state(ctx, a->id, "detached")))
        goto out;
    recover_attached_dir_drop(ctx, a->id, a->original);
    out->changed = true;

out:
    strv_free(sites);
    free(folder);
    free(venv);
    free(a);
    return rc;
}
