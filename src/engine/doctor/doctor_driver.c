/* The doctor's last layer: the NVIDIA driver, the CUDA toolkit, and both against the
 * compatibility tables (compat.c, docs/choosing.md). */
#include "compat.h"
#include "upstream.h"
#include "db.h"
#include "platform/fs.h"
#include "doctor.h"
#include "store_paths.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>

static void check_driver(struct doctor *d)
{
    const struct driver_info *dr = doctor_driver(d);
    char cuda[32] = "";
    if (dr->cuda_version)
        snprintf(cuda, sizeof(cuda), "; supports CUDA %d.%d", dr->cuda_version / 1000,
                 dr->cuda_version % 1000 / 10);
    if (!dr->found)
        doctor_add(d, "driver", CDM_CHECK_WARN,
                   "install the NVIDIA driver; cuDNN needs it and a GPU to run",
                   "no NVIDIA driver found (neither NVML nor libcuda/nvcuda could be loaded)");
    else if (!*dr->version && !dr->cuda_version)
        doctor_add(d, "driver", CDM_CHECK_WARN, "check the driver with 'nvidia-smi'",
                   "the driver's libraries (%s) did not answer: %s", dr->source, dr->error);
    else
        doctor_add(d, "driver", CDM_CHECK_OK, NULL, "driver %s%s (from %s)",
                   *dr->version ? dr->version : "version unknown", cuda, dr->source);
}

/* The toolkit the project's current generation recorded (cdm link --toolkit), into g. */
static bool project_toolkit(struct doctor *d, struct cdm_generation *g)
{
    return d->have_project && db_generation_get(d->ctx, d->project.path, 0, g) == CDM_OK &&
           *g->toolkit_path;
}

static void check_toolkit(struct doctor *d)
{
    /* A project's recorded toolkit is the one its link, and so CUDA_PATH, leads to. */
    struct cdm_generation g;
    d->have_toolkit = project_toolkit(d, &g)
                          ? toolkit_in_dir(g.toolkit_path, "the project's --toolkit", &d->toolkit)
                          : toolkit_find(cdm_root(d->ctx), &d->toolkit);
    if (d->have_toolkit)
        doctor_add(d, "toolkit", CDM_CHECK_OK, NULL, "CUDA toolkit %s, from %s", d->toolkit.version,
                   d->toolkit.source);
    else
        doctor_add(d, "toolkit", CDM_CHECK_SKIP, NULL,
                   "no CUDA toolkit found (CUDA_PATH and CUDA_HOME unset or without a version "
                   "file, no nvcc on PATH)");
}

/* A toolkit on this machine other than what CUDA_PATH names: the one CUDA_PATH had before
 * an activation, else the first cdm finds outside the store. Into where (its folder). */
static bool toolkit_elsewhere(struct doctor *d, char *where, size_t size)
{
    char *saved = fs_getenv("CDM_SAVED_CUDA_PATH");
    struct toolkit_info tk = {0};
    bool found = saved && str_starts_with(saved, "set:") &&
                 toolkit_in_dir(saved + 4, "CDM_SAVED_CUDA_PATH", &tk);
    if (found)
        copy_text(where, size, saved + 4);
    toolkit_free(&tk);
    free(saved);
    struct cdm_toolkit *all = NULL;
    size_t n = 0;
    char *root = fs_realpath(cdm_root(d->ctx));
    if (!found && cdm_toolkits(d->ctx, &all, &n) == CDM_OK)
        for (size_t i = 0; i < n && !found; i++)
            if ((found = !root || !path_within(all[i].real, root)))
                copy_text(where, size, all[i].path);
    free(root);
    free(all);
    return found;
}

/* CUDA_PATH holding no toolkit while one is here: builds that find nvcc and cudart through
 * it (torch.utils.cpp_extension, CuPy, CMake) lose them. An activation by an older cdm did
 * this; this one keeps the toolkit (toolkit_kept.c). */
static void check_cuda_path(struct doctor *d)
{
    char *cuda = fs_getenv("CUDA_PATH");
    struct toolkit_info tk = {0};
    char where[4096];
    if (!cuda || !*cuda)
        doctor_add(d, "toolkit.cuda_path", CDM_CHECK_SKIP, NULL, "CUDA_PATH is not set");
    else if (toolkit_in_dir(cuda, "CUDA_PATH", &tk))
        doctor_add(d, "toolkit.cuda_path", CDM_CHECK_OK, NULL,
                   "CUDA_PATH '%s' holds the CUDA %s toolkit", cuda, tk.version);
    else if (toolkit_elsewhere(d, where, sizeof(where)))
        doctor_add(d, "toolkit.cuda_path", CDM_CHECK_FAIL,
                   "activate again ('cdm activate'), which keeps the toolkit in CUDA_PATH with "
                   "the project's cuDNN, or set CUDA_PATH to the toolkit",
                   "CUDA_PATH '%s' holds no CUDA toolkit, but '%s' is one: builds that find "
                   "nvcc and cudart through CUDA_PATH (torch.utils.cpp_extension, CuPy, CMake) "
                   "lose them",
                   cuda, where);
    else
        doctor_add(d, "toolkit.cuda_path", CDM_CHECK_OK, NULL,
                   "CUDA_PATH '%s' holds no CUDA toolkit, and none is here to hide", cuda);
    toolkit_free(&tk);
    free(cuda);
}

static void check_compat_toolkit(struct doctor *d)
{
    if (!d->have_install || !d->have_toolkit) {
        doctor_add(d, "compat.toolkit", CDM_CHECK_SKIP, NULL, "%s",
                   d->have_install ? "no toolkit to compare with" : "no cuDNN install to examine");
        return;
    }
    char why[512];
    enum compat_verdict v = compat_toolkit(d->major, d->minor, d->patch, d->install.cuda,
                                           d->toolkit.major, d->toolkit.minor, why, sizeof(why));
    /* Propose a build that exists: 8.8 has no cuda13 variant, 9.12 no cuda11 one. */
    int fa, fi, la, li;
    int here = d->major * 100 + d->minor;
    bool known = compat_variant_span(d->toolkit.major, &fa, &fi, &la, &li);
    char *fix;
    if (known && here >= fa * 100 + fi && here <= la * 100 + li)
        fix = xasprintf("use cuDNN's cuda%d variant ('cdm install %d.%d --cuda %d') or a CUDA "
                        "%d toolkit for this one",
                        d->toolkit.major, d->major, d->minor, d->toolkit.major, d->install.cuda);
    else if (known && here < fa * 100 + fi)
        fix = xasprintf("use a CUDA %d toolkit for this one: cuDNN %d.%d has no cuda%d build "
                        "(NVIDIA builds for CUDA %d from cuDNN %d.%d: 'cdm install %d.%d --cuda "
                        "%d' or later)",
                        d->install.cuda, d->major, d->minor, d->toolkit.major, d->toolkit.major, fa,
                        fi, fa, fi, d->toolkit.major);
    else if (known)
        fix = xasprintf("use a CUDA %d toolkit for this one: cuDNN %d.%d has no cuda%d build "
                        "(the last is cuDNN %d.%d: 'cdm install %d.%d --cuda %d')",
                        d->install.cuda, d->major, d->minor, d->toolkit.major, la, li, la, li,
                        d->toolkit.major);
    else
        fix = xasprintf("use a CUDA %d toolkit for this one (cdm knows of no cuDNN build for "
                        "CUDA %d)",
                        d->install.cuda, d->toolkit.major);
    static const enum cdm_check_status map[] = {CDM_CHECK_OK, CDM_CHECK_WARN, CDM_CHECK_FAIL,
                                                CDM_CHECK_OK};
    doctor_add(d, "compat.toolkit", map[v], fix, "%s", why);
    free(fix);
}

static void check_compat_driver(struct doctor *d)
{
    const struct driver_info *dr = doctor_driver(d);
    /* Without a toolkit, the CUDA runtime cuDNN was built with is what needs the driver. */
    int ma = d->toolkit.major, mi = d->toolkit.minor;
    const char *what = "toolkit";
    if (!d->have_toolkit && d->cudart) {
        ma = (int)(d->cudart / 1000);
        mi = (int)(d->cudart % 1000 / 10);
        what = "cuDNN's CUDA runtime";
    } else if (!d->have_toolkit) {
        doctor_add(d, "compat.driver", CDM_CHECK_SKIP, NULL, "no CUDA version to compare with");
        return;
    }
    if (!dr->found || (!*dr->version && !dr->cuda_version)) {
        doctor_add(d, "compat.driver", CDM_CHECK_SKIP, NULL, "no driver version");
        return;
    }
    char *fix = xasprintf("update the NVIDIA driver for CUDA %d.%d", ma, mi);
    if (*dr->version) {
        char why[512];
        enum compat_verdict v =
            compat_driver(dr->version, ma, mi, fs_host_is_windows(), why, sizeof(why));
        static const enum cdm_check_status map[] = {CDM_CHECK_OK, CDM_CHECK_WARN, CDM_CHECK_FAIL,
                                                    CDM_CHECK_SKIP};
        doctor_add(d, "compat.driver", map[v], fix, "%s (%s %d.%d)", why, what, ma, mi);
    } else {
        int dma = dr->cuda_version / 1000, dmi = dr->cuda_version % 1000 / 10;
        if (dma > ma || (dma == ma && dmi >= mi))
            doctor_add(d, "compat.driver", CDM_CHECK_OK, NULL,
                       "the driver supports CUDA %d.%d, the %s is %d.%d", dma, dmi, what, ma, mi);
        else if (dma == ma)
            doctor_add(d, "compat.driver", CDM_CHECK_WARN, fix,
                       "the driver supports CUDA %d.%d, older than the %s's %d.%d (minor-version "
                       "compatibility applies)",
                       dma, dmi, what, ma, mi);
        else
            doctor_add(d, "compat.driver", CDM_CHECK_FAIL, fix,
                       "the driver supports CUDA %d.%d, too old for the %s's %d.%d", dma, dmi, what,
                       ma, mi);
    }
    free(fix);
}

static void view_problem(void *arg, const char *path, const char *problem)
{
    struct strbuf *sb = arg;
    if (!sb->len)
        sb_addf(sb, "'%s' %s", path, problem);
}

/* A project linked with a toolkit leads to a view (view.h): whole, and its links leading
 * somewhere; or, where the view could not be made, the reason the link holds cuDNN alone. */
static void check_view(struct doctor *d)
{
    struct cdm_generation g;
    if (!project_toolkit(d, &g)) {
        doctor_add(d, "toolkit.view", CDM_CHECK_SKIP, NULL,
                   "the project records no CUDA toolkit ('cdm link --toolkit')");
        return;
    }
    const struct cdm_project *p = &d->project;
    char *fix = xasprintf("run 'cdm link %s --toolkit %s' to build it again, or --toolkit none",
                          p->path, g.toolkit_path);
    struct cdm_install_info in;
    struct strbuf problems = STRBUF_INIT;
    unsigned count = 0;
    if (!*g.view)
        doctor_add(d, "toolkit.view", CDM_CHECK_WARN, fix,
                   "the CUDA %s toolkit is recorded but no view of it could be made when it was "
                   "linked (no hard link or symbolic link on this volume: turn on Developer "
                   "Mode, or keep the store on the toolkit's volume): CUDA_PATH holds cuDNN alone, "
                   "no nvcc or cudart",
                   g.toolkit);
    else if (strcmp(p->view, g.view))
        doctor_add(d, "toolkit.view", CDM_CHECK_FAIL, fix,
                   "the link should lead to the view %s of the CUDA %s toolkit, not '%s'", g.view,
                   g.toolkit, p->target);
    else if (db_install_find(d->ctx, g.install_id, &in) == CDM_OK &&
             (count = view_check(d->ctx, &in, g.toolkit_path, g.view, view_problem, &problems)))
        doctor_add(d, "toolkit.view", CDM_CHECK_FAIL, fix, "the view %s has %u problem(s): %s",
                   g.view, count, sb_str(&problems));
    else
        doctor_add(d, "toolkit.view", CDM_CHECK_OK, NULL,
                   "the link leads to the view %s: the CUDA %s toolkit in '%s' with %s on top",
                   g.view, g.toolkit, g.toolkit_path, g.install_id);
    sb_free(&problems);
    free(fix);
}

static const doctor_check_fn checks[] = {check_driver, check_toolkit,        check_cuda_path,
                                         check_view,   check_compat_toolkit, check_compat_driver};

const struct doctor_layer doctor_driver_layer = {"driver", checks, CDM_ARRAY_LEN(checks)};
