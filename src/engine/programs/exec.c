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
#include "ran_on_gpu.h"

#include <stdio.h>
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

/* The linked install against this machine's GPU and driver, known by its id alone (no
 * index read: exec starts every notebook kernel). */
static int check_machine(cdm_ctx *ctx, const struct cdm_activation *act, bool force)
{
    struct cdm_install_info in = {.state = CDM_INSTALL_OK};
    const char *cu = strstr(act->id, "-cuda");
    if (!cu || (size_t)(cu - act->id) >= sizeof(in.version))
        return CDM_OK;
    memcpy(in.version, act->id, (size_t)(cu - act->id));
    in.cuda = atoi(cu + 5);
    COPY_STR_ARRAY(in.id, act->id);
    snprintf(in.platform, sizeof(in.platform), "%s", cdm_host_platform());
    return cdm_machine_check_install(ctx, &in, force, "running with");
}

/* --check: run it watched, and fail when it loaded no cuDNN or no driver. */
static int run_checked(cdm_ctx *ctx, const struct trace_request *tr, int *exit_code)
{
    struct trace_result r;
    int rc = trace_run(ctx, tr, &r);
    if (rc)
        return rc;
    *exit_code = r.exit_code;
    struct strbuf why = STRBUF_INIT;
    if (!ran_on_gpu(&r, &why))
        rc = cdm_error_set(ctx, CDM_EMISMATCH,
                           "'%s' %s; 'cdm doctor -- %s' shows every library it loaded, and why",
                           tr->argv[0], sb_str(&why), tr->argv[0]);
    sb_free(&why);
    trace_result_free(&r);
    return rc;
}

int cdm_exec(cdm_ctx *ctx, const struct cdm_exec_request *req, int *exit_code)
{
    *exit_code = 1;
    struct cdm_activation act;
    int rc = cdm_activation_find(ctx, req->project, req->project == NULL, &act);
    struct cdm_env_plan plan = {.n = 0};
    if (rc || (rc = check_machine(ctx, &act, req->force)))
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
    rc = req->check ? run_checked(ctx, &tr, exit_code) : trace_exec(ctx, &tr, exit_code);
    for (size_t i = 0; i < plan.n; i++)
        free((char *)env[i].value);
    free(env);
    cdm_env_plan_free(&plan);
    return rc;
}
