/*
 * The doctor's Python layer: which cuDNN the project's Python environments will load.
 * PyTorch and ONNX Runtime take cuDNN from the nvidia-cudnn wheel through their own RPATH
 * ($ORIGIN/../../nvidia/cudnn/lib), which beats LD_LIBRARY_PATH, while the sub-libraries that
 * cuDNN opens by name follow LD_LIBRARY_PATH: an environment whose wheel is not the
 * project's (cdm attach) mixes two cuDNN copies once the project is activated. conda keeps
 * cuDNN in $CONDA_PREFIX/lib, which its packages' RPATH prefers the same way.
 */
#include "attach_files.h"
#include "cudnn_lib.h"
#include "db_attach.h"
#include "doctor.h"
#include "doctor_dll_routes.h"
#include "frameworks.h"
#include "libfile.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "pyenv.h"

#include <stdlib.h>
#include <string.h>

/* A check name per environment: python.venv, python.venv2, python.conda. */
static char *check_name(const struct py_env *e, size_t nth)
{
    const char *kind = e->kind == PY_CONDA ? "conda" : "venv";
    return nth ? xasprintf("python.%s%u", kind, (unsigned)(nth + 1)) : xasprintf("python.%s", kind);
}

/* The project's own library folder, as the environment should reach it. */
/* Windows or POSIX names: the install's, else this machine's. */
static bool windows(const struct doctor *d)
{
    return d->have_install ? d->windows : fs_host_is_windows();
}

/* The wheel's folder leads to the project's install: its main library is the install's
 * (a link per file, as cdm attach makes them), or the whole folder is (an older cdm's). */
static bool leads_to_project(struct doctor *d, const char *folder)
{
    if (!d->have_install)
        return false;
    char *front = cudnn_lib_file("", d->major, windows(d));
    char *mine = path_join(folder, front), *theirs = path_join(d->lib_dir, front);
    bool same = fs_same_path(folder, d->lib_dir) ||
                ((fs_kind(mine) != FS_FILE || windows(d)) && link_same_file(mine, theirs));
    free(theirs);
    free(mine);
    free(front);
    return same;
}

/* Each framework of the environment (the rules' table, frameworks.h) against the project's
 * install: one check per framework, named after the environment's (python.venv.torch). */
static void check_frameworks(struct doctor *d, char *const *sites, const char *env_check,
                             const char *prefix, enum cdm_check_status bad)
{
    if (!d->have_install)
        return;
    struct fw_verdict *v = NULL;
    size_t n = fw_check(sites, &d->install, &v);
    for (size_t i = 0; i < n; i++) {
        char *check =
            xasprintf("%s.%.*s", env_check, (int)strcspn(v[i].framework, " "), v[i].framework);
        if (!v[i].problem[0]) {
            doctor_add(d, check, CDM_CHECK_OK, NULL, "%s in '%s' accepts %s: it asks for %s (%s)",
                       v[i].framework, prefix, d->install.id, v[i].rule, v[i].source);
        } else {
            char *fix = xasprintf("link the project to a cuDNN it accepts, or go past the rule: %s",
                                  v[i].override);
            doctor_add(d, check, v[i].warn_only ? CDM_CHECK_WARN : bad, fix,
                       "%s in '%s': %s (it asks for %s; %s)", v[i].framework, prefix, v[i].problem,
                       v[i].rule, v[i].source);
            free(fix);
        }
        free(check);
    }
    free(v);
}

static void check_venv(struct doctor *d, const struct py_env *e, const char *name)
{
    size_t own = 0;
    char **sites = py_site_packages(e->prefix, &own);
    struct py_cudnn_place place;
    bool found = py_cudnn_place(e->prefix, sites, own, windows(d), &place);
    char *folder = found ? place.folder : NULL;
    struct py_dist wheel = place.dist;
    struct py_requirement pin;
    bool pinned = py_framework_requirement(sites, &pin);
    /* a venv of the project itself is the project's business; VIRTUAL_ENV may be another's */
    bool in_project = strcmp(e->why, "VIRTUAL_ENV") != 0;
    enum cdm_check_status bad = in_project ? CDM_CHECK_FAIL : CDM_CHECK_WARN;
    char *attach = xasprintf("run 'cdm attach %s%s%s'", e->prefix, d->have_project ? " " : "",
                             d->have_project ? d->project.path : "");
    if (!found) {
        doctor_add(d, name, CDM_CHECK_OK, NULL,
                   "'%s' (%s) has no cuDNN wheel%s%s: its programs take cuDNN from the "
                   "loader's search path, which activation sets",
                   e->prefix, e->why, pinned ? "; " : "", pinned ? pin.framework : "");
    } else if (leads_to_project(d, folder)) {
        doctor_add(d, name, CDM_CHECK_OK, NULL,
                   "'%s' (%s) is attached: %s in '%s' lead to the project's %s", e->prefix, e->why,
                   py_cudnn_origin_name(place.origin), folder, d->install.id);
    } else {
        struct lib_origin o;
        char *front = cudnn_lib_file("", d->have_install ? d->major : 9, windows(d));
        char *front_path = path_join(folder, front);
        lib_origin(d->ctx, front_path, &o);
        /* torch's version says nothing of its DLLs': the DLL's own (version resource) */
        const char *version = o.version[0] ? o.version
                              : place.origin == PY_CUDNN_WHEEL || place.origin == PY_CUDNN_CONDA
                                  ? wheel.version
                                  : "";
        const char *who = pinned ? pin.framework : "its frameworks";
        if (!d->have_install) {
            doctor_add(d, name, CDM_CHECK_OK, NULL, "'%s' (%s): %s load cuDNN %s from '%s' (%s)",
                       e->prefix, e->why, who, version[0] ? version : "(version unknown)", folder,
                       py_cudnn_origin_name(place.origin));
        } else if (!version[0] || !lib_same_version(version, d->install.version)) {
            doctor_add(d, name, bad, attach,
                       "'%s' (%s): %s load cuDNN %s from '%s' (%s), not the project's %s; with "
                       "the project activated the sub-libraries cuDNN opens by name come from "
                       "the project: two cuDNN versions in one process",
                       e->prefix, e->why, who, version[0] ? version : "of unknown version", folder,
                       windows(d) ? "before any folder on PATH"
                                  : "their RPATH beats LD_LIBRARY_PATH",
                       d->install.id);
        } else {
            doctor_add(d, name, CDM_CHECK_WARN, attach,
                       "'%s' (%s): %s load the wheel's own copy of cuDNN %s from '%s', the "
                       "project's version but not its files: a later 'cdm link' or 'cdm "
                       "rollback' will not reach it",
                       e->prefix, e->why, who, version, folder);
        }
        free(front_path);
        free(front);
    }
    check_frameworks(d, sites, name, e->prefix, bad);
    if (windows(d) && own) {
        char *wheel_dir = NULL;
        struct py_dist wd;
        py_cudnn_wheel(sites[0], true, &wheel_dir, &wd);
        char *site = path_slashes_to(xstrdup(sites[0]), '\\');
        doctor_dll_routes(d, name, e->prefix, site, wheel_dir);
        free(site);
        free(wheel_dir);
    }
    free(attach);
    free(folder);
    strv_free(sites);
}

static void check_conda(struct doctor *d, const struct py_env *e, const char *name)
{
    char *dir = path_join(e->prefix, windows(d) ? "Library/bin" : "lib");
    char *front = cudnn_lib_file("", d->have_install ? d->major : 9, windows(d));
    char *path = path_join(dir, front);
    if (fs_kind(path) == FS_NONE) {
        doctor_add(d, name, CDM_CHECK_OK, NULL,
                   "the conda environment '%s' has no %s: its programs take cuDNN from the "
                   "loader's search path",
                   e->prefix, front);
    } else {
        char version[64];
        cudnn_version_of_file(path, version, sizeof(version));
        if (d->have_install && (!version[0] || !lib_same_version(version, d->install.version))) {
            char *fix = xasprintf(
                "conda environments are not attached by cdm: install the project's version in "
                "it (conda install -c conda-forge cudnn=%d.%d), or remove its cudnn package "
                "(conda remove --force cudnn) so the activated project's comes first",
                d->major, d->minor);
            doctor_add(d, name, CDM_CHECK_WARN, fix,
                       "the conda environment '%s' holds cuDNN %s ('%s'), which its packages' "
                       "RPATH ($ORIGIN/../lib) prefers to the project's %s",
                       e->prefix, version[0] ? version : "of unknown version", path, d->install.id);
            free(fix);
        } else {
            doctor_add(d, name, CDM_CHECK_OK, NULL,
                       "the conda environment '%s' holds cuDNN %s ('%s')%s", e->prefix,
                       version[0] ? version : "of unknown version", path,
                       d->have_install ? ", the project's version" : "");
        }
    }
    free(path);
    free(front);
    free(dir);
}

/* The environments cdm attached to the project, by its records, each judged by the disk:
 * pip or uv may have reinstalled, upgraded or removed the wheel since. */
static size_t check_attached(struct doctor *d)
{
    struct db_attachment *v = NULL;
    size_t n = 0;
    if (!d->have_project || !d->ctx->state ||
        db_attach_of_project(d->ctx, d->project.path, &v, &n) != CDM_OK)
        return 0;
    for (size_t i = 0; i < n; i++) {
        struct db_attachment *a = &v[i];
        char *name =
            n > 1 ? xasprintf("python.attached%u", (unsigned)(i + 1)) : xstrdup("python.attached");
        size_t own = 0;
        char **sites = py_site_packages(a->venv, &own);
        struct py_cudnn_place place;
        if (!py_cudnn_place(a->venv, sites, own, windows(d), &place))
            memset(&place, 0, sizeof(place));
        char *folder = place.folder;
        struct py_dist dist = place.dist;
        char drift[512];
        bool wheel_changed = false;
        attach_drift(d->ctx, a, &dist, &wheel_changed, drift, sizeof(drift));
        if (drift[0] && !attach_is_folder_link(d->ctx, a)) {
            char *fix = xasprintf("run 'cdm attach %s %s' to attach it again, or 'cdm detach %s'",
                                  a->venv, a->project, a->venv);
            doctor_add(d, name, CDM_CHECK_FAIL, fix,
                       "'%s' is attached to the project, but %s: its frameworks load the "
                       "environment's own cuDNN, not the project's",
                       a->venv, drift);
            free(fix);
        } else {
            doctor_add(d, name, CDM_CHECK_OK, NULL,
                       "'%s' is attached to the project (%s): its cuDNN files lead to '%s'",
                       a->venv, a->wheel[0] ? a->wheel : "wheel of unknown version", a->target);
        }
        check_frameworks(d, sites, name, a->venv, CDM_CHECK_FAIL);
        free(folder);
        strv_free(sites);
        free(name);
    }
    free(v);
    return n;
}

static void check_python(struct doctor *d)
{
    struct py_env *envs = NULL;
    size_t n = 0;
    size_t attached = check_attached(d);
    py_envs_find(d->have_project ? d->project.path : NULL, &envs, &n);
    if (!n && !attached)
        doctor_add(d, "python", CDM_CHECK_SKIP, NULL,
                   "no Python environment: none in the project (.venv, venv), and neither "
                   "VIRTUAL_ENV nor CONDA_PREFIX is set");
    size_t venvs = 0, condas = 0;
    for (size_t i = 0; i < n; i++) {
        char *name = check_name(&envs[i], envs[i].kind == PY_CONDA ? condas++ : venvs++);
        if (envs[i].kind == PY_CONDA)
            check_conda(d, &envs[i], name);
        else
            check_venv(d, &envs[i], name);
        free(name);
    }
    free(envs);
}

static const doctor_check_fn python_checks[] = {check_python};
const struct doctor_layer doctor_python_layer = {"python", python_checks,
                                                 CDM_ARRAY_LEN(python_checks)};
