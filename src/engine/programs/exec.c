/*
 * cdm exec: a command run with exactly what `cdm activate` sets for the project, no shell
 * in between; on Linux also with every cuDNN library its processes load taken from the
 * project's install (cdm-audit.so's redirect, ld_audit.c), so that an RPATH (PyTorch's
 * $ORIGIN/../../nvidia/cudnn/lib, conda's $ORIGIN/../lib) or a preload by path (JAX,
 * ONNX Runtime) cannot take another copy. Windows has no such hook: torch there loads its
 * own torch\lib\cudnn*.dll by path, which only cdm attach reaches, and cdm says so.
 */
#include "attach_files.h"
#include "internal.h"
#include "platform/fs.h"
#include "platform/trace.h"
#include "pyenv.h"

#include <stdlib.h>
#include <string.h>


/* Windows: an environment of the project whose torch loads its own cuDNN DLLs by path,
 * not attached to the project (its cudnn64_9.dll is not the project's). */
static void warn_torch_own_dlls(cdm_ctx *ctx, const struct cdm_activation *act)
{
    struct py_env *envs = NULL;
    size_t n = 0;
    py_envs_find(act->project, &envs, &n);
    char *bin = path_join(act->link_path, act->bin_dir);
    for (size_t i = 0; i < n; i++) {
        size_t own = 0;
        char **sites = py_site_packages(envs[i].prefix, &own);
        struct py_cudnn_place place;
        if (py_cudnn_place(envs[i].prefix, sites, own, true, &place)) {
            if (place.origin == PY_CUDNN_TORCH_LIB &&
                !attach_file_is_ours(ctx, place.folder, bin, "cudnn64_9.dll", true))
                cdm_warn(ctx,
                         "'%s' (%s) holds torch's own cuDNN DLLs in '%s', which torch loads by "
                         "their path whatever PATH says: 'cdm attach %s %s' makes them the "
                         "project's",
                         envs[i].prefix, envs[i].why, place.folder, envs[i].prefix, act->project);
            free(place.folder);
        }
        strv_free(sites);
    }
    free(bin);
    free(envs);
}

int cdm_exec(cdm_ctx *ctx, const struct cdm_exec_request *req, int *exit_code)
{
    *exit_code = 1;
    struct cdm_activation act;
    int rc = cdm_activation_find(ctx, req->project, req->project == NULL, &act);
    struct cdm_env_plan plan = {.n = 0};
    if (rc)
        return rc;
    /* the redirect is exec's own unless refused; without cdm-audit.so, a warning */
    act.redirect = req->no_redirect || fs_host_is_windows() ? CDM_REDIRECT_NO : CDM_REDIRECT_WANTED;
    if ((rc = cdm_activation_plan(ctx, &act, &plan)))
        return rc;
    if (fs_host_is_windows())
        warn_torch_own_dlls(ctx, &act);
    struct trace_env *env = xcalloc(plan.n + 1, sizeof(*env));
    for (size_t i = 0; i < plan.n; i++) {
        env[i].name = plan.v[i].name;
        env[i].value = cdm_env_change_value(&plan.v[i]);
    }
    struct trace_request tr = {req->argv, env, plan.n, false, 0};
    rc = trace_exec(ctx, &tr, exit_code);
    for (size_t i = 0; i < plan.n; i++)
        free((char *)env[i].value);
    free(env);
    cdm_env_plan_free(&plan);
    return rc;
}
