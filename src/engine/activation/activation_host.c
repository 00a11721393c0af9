/*
 * Activation over this process's environment and this system (cdm.h's cdm_activation_*):
 * the plans of env_plan.c, read from a snapshot of the environment, with the audit
 * library found for a redirect.
 */
#include "base/error.h"
#include "platform/fs.h"
#include "platform/trace.h"
#include "env_plan.h"

#include <stdlib.h>
#include <string.h>

const char *env_snapshot_get(void *snapshot, const char *name)
{
    struct env_snapshot *s = snapshot;
    char *v = fs_getenv(name);
    if (!v)
        return NULL;
    ALLOC_GROW(s->values, s->n);
    s->values[s->n++] = v;
    return v;
}

void env_snapshot_free(struct env_snapshot *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->values[i]);
    free(s->values);
    s->values = NULL;
    s->n = 0;
}

void cdm_env_plan_free(struct cdm_env_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++) {
        free(plan->v[i].value);
        free(plan->v[i].first);
    }
    plan->n = 0;
}

char *cdm_env_change_value(const struct cdm_env_change *change)
{
    return env_change_value(shell_host_platform(), change);
}

/* The path list takes the install's bin folder where the system's loader finds libraries
 * there (DLLs), else its lib folder. */
void activation_target_of(const struct shell_platform *pf, const struct cdm_activation *a,
                          struct activation_target *t)
{
    t->id = a->id;
    t->project = a->project;
    t->link_path = a->link_path;
    t->lib_dir = pf->use_bin_dir ? a->bin_dir : a->lib_dir;
    t->toolkit = *a->toolkit != '\0';
    t->bin_dir = a->bin_dir;
    t->cuda_path = *a->cuda_path ? a->cuda_path : a->link_path;
    t->cuda_bin = *a->cuda_path ? a->cuda_bin : a->bin_dir;
    t->lib_folder = a->lib_dir;
    t->build_paths = a->build_paths;
    t->audit = NULL;
}

/* The audit library for a's redirect into *audit (NULL: none). Where there can be none, a
 * redirect asked for fails and one the configuration wants is dropped with a warning. */
static int redirect_library(cdm_ctx *ctx, const struct cdm_activation *a, char **audit)
{
    *audit = NULL;
    if (a->redirect == CDM_REDIRECT_NO)
        return CDM_OK;
    bool asked = a->redirect == CDM_REDIRECT_ASKED;
    if (fs_host_is_windows()) {
        const char *why = "its loader has no audit interface to redirect cuDNN loads with "
                          "('cdm attach ENV' makes a Python environment's own cuDNN DLLs the "
                          "project's)";
        if (asked)
            return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                                 "cannot activate with --redirect on Windows: %s; activate "
                                 "without --redirect",
                                 why);
        cdm_warn(ctx, "[activate] redirect is ignored on Windows: %s", why);
        return CDM_OK;
    }
    struct strbuf looked = STRBUF_INIT;
    char *found = trace_audit_library(&looked);
    char *why = !found ? xasprintf("no cdm-audit.so (looked at %s); install cdm with 'meson "
                                   "install', or set CDM_AUDIT_LIBRARY to the file",
                                   sb_str(&looked))
                : strchr(found, ':')
                    ? xasprintf("'%s' holds ':', which separates LD_AUDIT's entries; install "
                                "cdm elsewhere",
                                found)
                    : NULL;
    sb_free(&looked);
    int rc = CDM_OK;
    if (!why)
        *audit = found;
    else if (asked)
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot redirect cuDNN loads to %s: %s; or activate without "
                           "--redirect",
                           a->id, why);
    else
        cdm_warn(ctx, "cuDNN loads are not redirected to %s: %s", a->id, why);
    if (why)
        free(found);
    free(why);
    return rc;
}

int cdm_activation_plan(cdm_ctx *ctx, const struct cdm_activation *a, struct cdm_env_plan *out)
{
    const struct shell_platform *pf = shell_host_platform();
    struct activation_target t;
    activation_target_of(pf, a, &t);
    char *audit = NULL;
    out->n = 0;
    int rc = redirect_library(ctx, a, &audit);
    if (rc)
        return rc;
    t.audit = audit;
    struct env_snapshot env = {NULL, 0};
    bool listable = activation_plan(pf, env_snapshot_get, &env, &t, out);
    env_snapshot_free(&env); /* the plan holds copies */
    free(audit);
    if (listable)
        return CDM_OK;
    char *entry = activation_entry(pf, &t);
    rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                       "cannot put '%s' on %s: its name holds '%c', which separates %s "
                       "entries; rename or move the project folder",
                       entry, pf->path_var, pf->list_sep, pf->path_var);
    free(entry);
    return rc;
}

bool cdm_activation_is_current(const struct cdm_activation *a)
{
    const struct shell_platform *pf = shell_host_platform();
    struct activation_target t;
    activation_target_of(pf, a, &t);
    struct env_snapshot env = {NULL, 0};
    bool redirect = a->redirect != CDM_REDIRECT_NO && !fs_host_is_windows();
    bool current = activation_current(pf, env_snapshot_get, &env, &t, redirect);
    env_snapshot_free(&env);
    return current;
}

void cdm_deactivation_plan(struct cdm_env_plan *out)
{
    struct env_snapshot env = {NULL, 0};
    deactivation_plan(shell_host_platform(), env_snapshot_get, &env, out);
    env_snapshot_free(&env); /* the plan holds copies */
}
