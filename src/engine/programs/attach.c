/*
 * cdm attach / cdm detach: a Python environment's cuDNN libraries follow a project.
 *
 * The wheel's folder (site-packages/nvidia/cudnn/lib) stays the environment's own real
 * folder; each cuDNN library in it is moved into a kept folder and replaced by its own link
 * to the project's file of that name (<project>/<link>/lib/<name>), so that a later link or
 * rollback of the project applies too, and so that pip and uv, which unlink each file they
 * replace or remove, replace cdm's links and never write into the store.
 *
 * This file finds the environment's cuDNN, the project's install, and checks the files and
 * the frameworks' rules; the attach and the detach themselves, and their recovery after a
 * kill, are the attach protocol (journal_attach.c). The record is checked against the disk,
 * not trusted: a wheel that pip or uv reinstalled since is seen, and attach and detach say
 * what they found.
 */
#include "attach_switch.h"
#include "upstream.h"
#include "attach_files.h"
#include "attach_hook.h"
#include "journal_attach.h"
#include "db.h"
#include "db_attach.h"
#include "frameworks.h"
#include "platform/fs.h"
#include "pyenv.h"
#include "store.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

/* Where the environment keeps its cuDNN (pyenv.h, py_cudnn_place_nth: its nth place):
 * *folder malloc'd, dist what owns the files, *origin which kind of place. Past its last
 * place (nth > 0), CDM_ENOTFOUND with no message. */
static int find_wheel(cdm_ctx *ctx, const char *venv, size_t nth, char ***sites, char **folder,
                      struct py_dist *dist, enum py_cudnn_origin *origin, bool *hook_only)
{
    size_t own = 0;
    bool windows = fs_host_is_windows();
    *sites = py_site_packages(venv, &own);
    if (!own)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "'%s' is not a Python environment: it has no %s; give the folder "
                             "that holds pyvenv.cfg",
                             venv, py_site_packages_shown(windows));
    struct py_cudnn_place place;
    if (py_cudnn_place_nth(venv, *sites, own, windows, nth, &place)) {
        *folder = place.folder;
        *dist = place.dist;
        if (origin)
            *origin = place.origin;
        return CDM_OK;
    }
    if (nth)
        return CDM_ENOTFOUND;
    if (hook_only && windows) {
        /* No cuDNN of its own: the environment's programs load cuDNN by name (CTranslate2,
         * ONNX Runtime), and the hook alone gives them the project's. */
        *hook_only = true;
        *folder = path_slashes_to(xstrdup((*sites)[0]), '\\');
        memset(dist, 0, sizeof(*dist));
        return CDM_OK;
    }
    char *wheel = py_wheel_dir_in("site-packages", windows);
    int rc =
        cdm_error_set(ctx, CDM_ENOTFOUND,
                      "'%s' has no cuDNN wheel folder (%s)%s, nor a conda cudnn package: "
                      "install the nvidia-cudnn-cu12 or -cu13 wheel there (or the "
                      "framework that pulls it in), then attach",
                      venv, wheel, windows ? " or torch's own DLLs (torch\\lib\\cudnn*.dll)" : "");
    free(wheel);
    return rc;
}

static void fill_result(struct cdm_attach_result *out, const struct db_attachment *a)
{
    COPY_STR_ARRAY(out->venv, a->venv);
    COPY_STR_ARRAY(out->folder, a->folder);
    COPY_STR_ARRAY(out->target, a->target);
    COPY_STR_ARRAY(out->original, a->original);
    COPY_STR_ARRAY(out->project, a->project);
    COPY_STR_ARRAY(out->install_id, a->install_id);
    COPY_STR_ARRAY(out->wheel, a->wheel);
}

/* The link target of a project: <project>/<link>/<lib_dir> (bin_dir on Windows). */
static char *project_target(const struct cdm_activation *act)
{
    const char *sub = attach_target_sub(act->lib_dir, act->bin_dir);
    char *target = *sub ? path_join(act->link_path, sub) : xstrdup(act->link_path);
    return fs_host_is_windows() ? path_slashes_to(target, '\\') : target;
}

/* The wheel's folder is the environment's own: a real folder inside it, not a link that
 * leads elsewhere (whose files cdm would move). */
static int check_wheel_folder(cdm_ctx *ctx, const char *venv, const char *folder)
{
    enum fs_kind kind = fs_kind(folder);
    char *real = fs_realpath(folder);
    const char *below = real ? path_below(real, venv) : NULL;
    int rc = CDM_OK;
    if (kind == FS_LINK)
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot attach '%s': '%s' is a link that cdm did not record; put the "
                           "wheel's folder back (pip install --force-reinstall the nvidia-cudnn "
                           "wheel), then attach",
                           venv, folder);
    else if (kind != FS_DIR)
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot attach '%s': '%s' is not a folder; reinstall the nvidia-cudnn "
                           "wheel (pip install --force-reinstall), then attach",
                           venv, folder);
    else if (!below || !*below)
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "cannot attach '%s': '%s' leads out of the environment (to '%s'); "
                           "cdm moves only files the environment holds itself",
                           venv, folder, real ? real : "nowhere");
    free(real);
    return rc;
}

/* Every wheel file has a file of the same name in the project's folder target. */
static int check_target_has(cdm_ctx *ctx, const char *venv, char *const *names, const char *target,
                            const char *install_id)
{
    struct strbuf missing = STRBUF_INIT;
    int rc = CDM_OK;
    if (attach_missing_names(names, target, &missing))
        rc = cdm_error_set(ctx, CDM_EMISMATCH,
                           "cannot attach '%s': the project's %s has no %s, which the wheel "
                           "holds; link the project to a cuDNN with the wheel's libraries",
                           venv, install_id, sb_str(&missing));
    sb_free(&missing);
    return rc;
}

/* A project holding two cuDNN majors (a pair view): the environment follows the install
 * of its wheel's major, into *in when that is the second. */
static void of_wheel_major(cdm_ctx *ctx, const struct cdm_project *proj, const struct py_dist *dist,
                           struct cdm_install_info *in)
{
    char second[64];
    struct cdm_install_info other;
    int major = atoi(dist->version);
    if (cdm_pair_view_also(proj->view, second, sizeof(second)) && major &&
        major != atoi(in->version) && db_install_find(ctx, second, &other) == CDM_OK &&
        atoi(other.version) == major)
        *in = other;
}

/* What the attach of one folder works with, gathered step by step. */
struct attach_job {
    const struct cdm_attach_request *req;
    char *venv, **sites, *folder, **names;
    struct py_dist dist;
    enum py_cudnn_origin origin;
    bool hook_only;
    struct cdm_project proj;
    struct cdm_install_info in;
};

/* The project and its install, before anything else, so that a refusal needs no link yet. */
static int find_project_install(cdm_ctx *ctx, struct attach_job *j, struct cdm_attach_result *out)
{
    const struct cdm_attach_request *req = j->req;
    int rc = req->project ? cdm_project_open(ctx, req->project, &j->proj)
                          : cdm_project_find(ctx, NULL, &j->proj);
    if (rc)
        return rc;
    const char *id = *j->proj.linked_id ? j->proj.linked_id : j->proj.pinned_id;
    if (!*id || db_install_find(ctx, id, &j->in) != CDM_OK || j->in.state != CDM_INSTALL_OK)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot attach '%s' to '%s': the project uses no installed cuDNN "
                             "(%s); run 'cdm link %s VERSION'",
                             j->venv, j->proj.path, *id ? id : "no link, no pin file",
                             j->proj.path);
    if (strcmp(j->in.platform, cdm_host_platform()))
        return cdm_error_set(ctx, CDM_EMISMATCH,
                             "cannot attach '%s' to '%s': it uses %s, an install for %s, and "
                             "this machine is %s",
                             j->venv, j->proj.path, j->in.id, j->in.platform, cdm_host_platform());
    of_wheel_major(ctx, &j->proj, &j->dist, &j->in);
    if ((rc = cdm_machine_check_install(ctx, &j->in, req->force, "attaching")) ||
        (rc = copy_path(ctx, out->venv, sizeof(out->venv), j->venv)) ||
        (rc = copy_path(ctx, out->folder, sizeof(out->folder), j->folder)))
        return rc;
    COPY_STR_ARRAY(out->project, j->proj.path);
    COPY_STR_ARRAY(out->install_id, j->in.id);
    attach_wheel_text(&j->dist, out->wheel, sizeof(out->wheel));
    return CDM_OK;
}

/* A record of this folder: current (*done: nothing more to do), or overtaken by pip or uv
 * since (then settled first, and the environment attached again), or a whole-folder link of
 * an older cdm (given back first, and attached file by file). */
static int settle_earlier(cdm_ctx *ctx, struct attach_job *j, struct cdm_attach_result *out,
                          bool *done)
{
    struct db_attachment *cur = xcalloc(1, sizeof(*cur));
    int rc = db_attach_current(ctx, j->folder, cur);
    *done = false;
    if (rc == CDM_ENOTFOUND) {
        rc = attach_drop_hook_only(ctx, j->venv, j->folder);
    } else if (rc == CDM_OK) {
        bool wheel_changed = false, folder_link = attach_is_folder_link(ctx, cur);
        if (!folder_link)
            attach_drift(ctx, cur, &j->dist, &wheel_changed, out->drift, sizeof(out->drift));
        if (folder_link || out->drift[0]) {
            rc = journal_detach(ctx, cur, wheel_changed, out);
        } else if (strcmp(cur->project, j->proj.path)) {
            rc = cdm_error_set(ctx, CDM_EBUSY,
                               "'%s' is attached to the project '%s'; run 'cdm detach %s' first",
                               j->venv, cur->project, j->venv);
        } else { /* attached to this project already */
            *done = true;
            fill_result(out, cur);
            char **kept = NULL;
            if (cur->original[0] && fs_list_dir(ctx, cur->original, &kept) == CDM_OK)
                for (; kept[out->files]; out->files++)
                    ;
            strv_free(kept);
            rc = attach_write_hook(ctx, cur, true, out);
        }
    }
    free(cur);
    return rc;
}

/* The folder's files, the frameworks' rules on the install, and where the links will lead
 * (out->target): every file a link is made for must be there. */
static int check_files_and_rules(cdm_ctx *ctx, struct attach_job *j, struct cdm_attach_result *out)
{
    int rc;
    if (j->hook_only)
        j->names = xcalloc(1, sizeof(*j->names));
    else if ((rc = check_wheel_folder(ctx, j->venv, j->folder)) ||
             (rc = attach_wheel_files(ctx, j->folder, fs_host_is_windows(), &j->names)))
        return rc;
    if (!j->names[0] && !j->hook_only)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot attach '%s': '%s' holds no cuDNN library (%s); reinstall "
                             "the nvidia-cudnn wheel (pip install --force-reinstall), then attach",
                             j->venv, j->folder,
                             fs_host_is_windows() ? "cudnn*.dll" : "libcudnn*.so*");
    struct py_requirement pin;
    py_framework_requirement(j->sites, &pin);
    COPY_STR_ARRAY(out->framework, pin.framework);
    COPY_STR_ARRAY(out->requirement, pin.text);
    char why[512];
    if (!attach_suits(j->sites, attach_reference(&j->dist, j->origin), &j->in, why, sizeof(why))) {
        if (!j->req->force)
            return cdm_error_set(ctx, CDM_EMISMATCH,
                                 "cannot attach '%s' to '%s': %s%s%s%s; link the project to a "
                                 "cuDNN the framework accepts, or pass --force",
                                 j->venv, j->proj.path, why, pin.text[0] ? " (Requires-Dist: " : "",
                                 pin.text, pin.text[0] ? ")" : "");
        copy_text(out->overridden, sizeof(out->overridden), why);
    }
    /* the links go through the project's own link, as activation's paths do */
    struct cdm_activation act;
    if ((rc = cdm_activation_find(ctx, j->proj.path, false, &act)))
        return cdm_error_wrap(ctx, rc, "cannot attach '%s'", j->venv);
    char *target = project_target(&act);
    if (!(rc = copy_path(ctx, out->target, sizeof(out->target), target)))
        rc = check_target_has(ctx, j->venv, j->names, target, j->in.id);
    free(target);
    return rc;
}

/* The change, in the order recovery expects: the record, the kept folder, the files moved
 * and linked one by one, the hook; a failure puts back what moved. */
static int record_and_link(cdm_ctx *ctx, struct attach_job *j, struct cdm_attach_result *out)
{
    struct db_attachment *a = xcalloc(1, sizeof(*a));
    COPY_STR_ARRAY(a->venv, out->venv);
    COPY_STR_ARRAY(a->folder, out->folder);
    COPY_STR_ARRAY(a->project, j->proj.path);
    COPY_STR_ARRAY(a->target, out->target);
    COPY_STR_ARRAY(a->install_id, j->in.id);
    COPY_STR_ARRAY(a->wheel, out->wheel);
    int rc = journal_attach(ctx, a, j->hook_only ? NULL : j->names, out);
    if (!rc) {
        fill_result(out, a);
        for (; j->names[out->files]; out->files++)
            ;
        out->changed = true;
    }
    free(a);
    return rc;
}

/* Attach the environment's nth place (find_wheel); CDM_ENOTFOUND without a message past
 * its last one. */
static int attach_nth(cdm_ctx *ctx, const struct cdm_attach_request *req, size_t nth,
                      struct cdm_attach_result *out)
{
    memset(out, 0, sizeof(*out));
    struct attach_job *j = xcalloc(1, sizeof(*j));
    j->req = req;
    j->origin = PY_CUDNN_WHEEL;
    bool done = false;
    int rc = store_open(ctx, STORE_STATE, RECOVER_STATE);
    if (rc)
        goto out;
    j->venv = fs_realpath(req->venv);
    if (!j->venv || fs_kind(j->venv) != FS_DIR) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "cannot attach '%s': no such folder", req->venv);
        goto out;
    }
    if (!(rc = find_wheel(ctx, j->venv, nth, &j->sites, &j->folder, &j->dist, &j->origin,
                          nth ? NULL : &j->hook_only)) &&
        !(rc = find_project_install(ctx, j, out)) && !(rc = settle_earlier(ctx, j, out, &done)) &&
        !done && !(rc = check_files_and_rules(ctx, j, out)))
        rc = record_and_link(ctx, j, out);
out:
    strv_free(j->names);
    strv_free(j->sites);
    free(j->folder);
    free(j->venv);
    free(j);
    return rc;
}

int cdm_attach(cdm_ctx *ctx, const struct cdm_attach_request *req, struct cdm_attach_result *out)
{
    int rc = attach_nth(ctx, req, 0, out);
    /* Windows: every framework folder with copies of its own (torch\lib, onnxruntime\capi,
     * ctranslate2 ...) and the wheel's, each a record of its own, loads the project's */
    struct cdm_attach_result *more = xcalloc(1, sizeof(*more));
    for (size_t nth = 1; !rc && fs_host_is_windows() && *out->original; nth++) {
        int r = attach_nth(ctx, req, nth, more);
        if (r == CDM_ENOTFOUND && !*more->folder)
            break; /* no more places */
        if ((rc = r))
            break;
        size_t used = strlen(out->more_folders);
        snprintf(out->more_folders + used, sizeof(out->more_folders) - used, "%s'%s'",
                 used ? ", " : "", more->folder);
        out->more++;
        out->files += more->files;
        out->changed = out->changed || more->changed;
    }
    free(more);
    return rc;
}

/* The environment's other records (its other framework folders), each settled as detach
 * settles one. */
static int detach_others(cdm_ctx *ctx, const char *venv, long long done,
                         struct cdm_attach_result *out)
{
    struct db_attachment *a = xcalloc(1, sizeof(*a));
    struct cdm_attach_result *r = xcalloc(1, sizeof(*r));
    int rc;
    while ((rc = db_attach_current_of_venv(ctx, venv, a)) == CDM_OK && a->id != done) {
        bool wheel_changed = fs_kind(a->folder) != FS_DIR;
        if ((rc = journal_detach(ctx, a, wheel_changed, r)))
            break;
        out->restored += r->restored;
        out->dropped += r->dropped;
        out->more++;
        out->changed = true;
    }
    free(r);
    free(a);
    return rc == CDM_ENOTFOUND ? CDM_OK : rc;
}

int cdm_detach(cdm_ctx *ctx, const char *venv_arg, struct cdm_attach_result *out)
{
    memset(out, 0, sizeof(*out));
    char **sites = NULL, *folder = NULL, *venv = NULL;
    struct db_attachment *a = xcalloc(1, sizeof(*a));
    struct py_dist dist;
    bool uninstalled = false;
    int rc = store_open(ctx, STORE_STATE, RECOVER_STATE);
    if (rc)
        goto out;
    venv = fs_realpath(venv_arg);
    if (!venv || fs_kind(venv) != FS_DIR) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "cannot detach '%s': no such folder", venv_arg);
        goto out;
    }
    if ((rc = copy_path(ctx, out->venv, sizeof(out->venv), venv)))
        goto out;
    if ((rc = find_wheel(ctx, venv, 0, &sites, &folder, &dist, NULL, NULL))) {
        /* pip or uv uninstalled the wheel since the attach: the record is settled all the
         * same, dropping the files cdm kept */
        if (rc != CDM_ENOTFOUND || db_attach_current_of_venv(ctx, venv, a) != CDM_OK)
            goto out;
        memset(&dist, 0, sizeof(dist));
        folder = xstrdup(a->folder);
        uninstalled = a->original[0] != '\0'; /* a hook alone had no wheel */
        rc = CDM_OK;
    }
    if ((rc = copy_path(ctx, out->folder, sizeof(out->folder), folder)))
        goto out;
    rc = db_attach_current(ctx, folder, a);
    if (rc == CDM_ENOTFOUND) {
        rc = CDM_OK;
        if (fs_kind(folder) == FS_LINK)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "cannot detach '%s': '%s' is a link cdm has no record of; "
                               "remove it and reinstall the nvidia-cudnn wheel",
                               venv, folder);
        if (!rc)
            rc = detach_others(ctx, venv, 0, out); /* other folders of it may be */
        goto out;                                  /* a real folder: not attached, nothing to do */
    }
    if (rc)
        goto out;
    fill_result(out, a);
    bool wheel_changed = false;
    /* the folder is there, its dist-info gone: a pip before 23.1 uninstalled the wheel and
     * left cdm's links */
    uninstalled = uninstalled || (!dist.name[0] && a->wheel[0] && a->original[0]);
    if (uninstalled) {
        wheel_changed = true;
        snprintf(out->drift, sizeof(out->drift), "the wheel %s was uninstalled",
                 a->wheel[0] ? a->wheel : "of unknown version");
    } else if (!attach_is_folder_link(ctx, a)) {
        attach_drift(ctx, a, &dist, &wheel_changed, out->drift, sizeof(out->drift));
    }
    if ((rc = journal_detach(ctx, a, wheel_changed, out)))
        goto out;
    if (uninstalled)
        attach_prune_empty(folder, venv);
    out->changed = true;
    rc = detach_others(ctx, venv, a->id, out);

out:
    strv_free(sites);
    free(folder);
    free(venv);
    free(a);
    return rc;
}
