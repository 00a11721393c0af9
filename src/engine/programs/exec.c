/*
 * cdm exec: a command run with exactly what `cdm activate` sets for the project, no shell
 * in between; on Linux also with every cuDNN library its processes load taken from the
 * project's install (cdm-audit.so's redirect, ld_audit.c), so that an RPATH (PyTorch's
 * $ORIGIN/../../nvidia/cudnn/lib, conda's $ORIGIN/../lib) or a preload by path (JAX,
 * ONNX Runtime) cannot take another copy. Windows has no such hook: Python programs get
 * the project's DLL folder through a sitecustomize.py of cdm's (exec_python.h); torch there
 * loads its own torch\lib\cudnn*.dll by path, which only cdm attach reaches, and cdm says so.
 */
#include "attach_files.h"
#include "cudnn_lib.h"
#include "exec_python.h"
#include "internal.h"
#include "platform/fs.h"
#include "platform/trace.h"
#include "pyenv.h"
#include "ran_on_gpu.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Windows: an environment of the project whose framework loads its own cuDNN DLLs (torch
 * by path), not attached to the project (its cudnn64_9.dll is not the project's). */
static void warn_torch_own_dlls(cdm_ctx *ctx, const struct cdm_activation *act)
{
    struct py_env *envs = NULL;
    size_t n = 0;
    py_envs_find(act->project, &envs, &n);
    char *bin = path_join(act->link_path, act->bin_dir);
    char version[32];
    struct version v = {{9}, 1};
    if (install_id_version(act->id, version, sizeof(version)))
        version_parse(version, &v);
    char *dll = cudnn_lib_name(true, v.part[0]);
    for (size_t i = 0; i < n; i++) {
        size_t own = 0;
        char **sites = py_site_packages(envs[i].prefix, &own);
        struct py_cudnn_place place;
        if (py_cudnn_place(envs[i].prefix, sites, own, true, &place)) {
            if ((place.origin == PY_CUDNN_TORCH_LIB || place.origin == PY_CUDNN_FRAMEWORK_DLLS) &&
                !attach_file_is_ours(ctx, place.folder, bin, dll, true))
                cdm_warn(ctx,
                         "'%s' (%s) holds %s's own cuDNN DLLs in '%s', which it loads before "
                         "any other folder whatever PATH says: 'cdm attach %s %s' makes them "
                         "the project's",
                         envs[i].prefix, envs[i].why, place.dist.name, place.folder, envs[i].prefix,
                         act->project);
            free(place.folder);
        }
        strv_free(sites);
    }
    free(dll);
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

/* Windows: PYTHONPATH and CDM_DLL_DIRECTORIES for Python programs (exec_python.h), added
 * to env after its *count entries. */
static int python_dll_dirs(cdm_ctx *ctx, const struct cdm_activation *act, struct trace_env *env,
                           size_t *count)
{
    char *dll_dir = path_slashes_to(path_join(act->link_path, act->bin_dir), '\\');
    char *values[2];
    int rc = exec_python_env(ctx, dll_dir, values);
    free(dll_dir);
    if (rc)
        return rc;
    env[*count].name = "PYTHONPATH";
    env[(*count)++].value = values[0];
    env[*count].name = "CDM_DLL_DIRECTORIES";
    env[(*count)++].value = values[1];
    return CDM_OK;
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
    struct trace_env *env = xcalloc(plan.n + 3, sizeof(*env));
    size_t count = 0;
    for (; count < plan.n; count++) {
        env[count].name = plan.v[count].name;
        env[count].value = cdm_env_change_value(&plan.v[count]);
    }
    if (fs_host_is_windows()) {
        warn_torch_own_dlls(ctx, &act);
        rc = python_dll_dirs(ctx, &act, env, &count);
    }
    struct trace_request tr = {req->argv, env, count, false, 0};
    if (!rc)
        rc = req->check ? run_checked(ctx, &tr, exit_code) : trace_exec(ctx, &tr, exit_code);
    for (size_t i = 0; i < count; i++)
        free((char *)env[i].value);
    free(env);
    cdm_env_plan_free(&plan);
    return rc;
}
