/*
 * Activation through the public API alone (cdm.h), over this process's environment, as
 * the front end uses it: plan, render, apply, see it current, deactivate. The shell text
 * itself is compared in test_shell.c; here the calls and the environment they read.
 */
#include "cdm.h"
#include "tap.h"
#include "testenv.h"

#include <stdlib.h>
#include <string.h>

static const char *const state_vars[] = {
    "CUDA_PATH",           "CUDNN_PATH",
    "CDM_SAVED_CUDA_PATH", "CDM_SAVED_CUDNN_PATH",
    "CDM_SAVED_PATH",      "CDM_SAVED_LD_LIBRARY_PATH",
    "CDM_PATH_ENTRY",      "CDM_PROJECT",
    "CDM_ACTIVE",
};

/* What a shell does with the rendered text: each change into the environment. */
static void apply(const struct cdm_env_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++) {
        char *v = cdm_env_change_value(&plan->v[i]);
        testenv_setenv(plan->v[i].name, v);
        free(v);
    }
}

/* The path list is the one change that puts an entry first. */
static const struct cdm_env_change *path_list(const struct cdm_env_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++)
        if (plan->v[i].first)
            return &plan->v[i];
    return NULL;
}

static const char *env(const char *name)
{
    return getenv(name);
}

static void fill(struct cdm_activation *a, const char *project, const char *id)
{
    memset(a, 0, sizeof(*a));
    snprintf(a->project, sizeof(a->project), "%s", project);
    snprintf(a->link_path, sizeof(a->link_path), "%s/cuda_link", project);
    snprintf(a->id, sizeof(a->id), "%s", id);
    snprintf(a->bin_dir, sizeof(a->bin_dir), "bin");
    snprintf(a->lib_dir, sizeof(a->lib_dir), "lib");
}

static void test_shells(void)
{
    char names[128] = "";
    size_t n = 0;
    for (; cdm_shell_at(n); n++)
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n ? " " : "",
                 cdm_shell_name(cdm_shell_at(n)));
    is_str(names, "pwsh powershell cmd bash zsh fish sh", "cdm_shell_at lists the shells in order");
    ok(cdm_shell_find("/usr/bin/zsh") == cdm_shell_at(4), "cdm_shell_find takes a program path");
    ok(cdm_shell_find("tcsh") == NULL, "and knows no tcsh");
}

static void test_cycle(cdm_ctx *ctx)
{
    for (size_t i = 0; i < sizeof(state_vars) / sizeof(state_vars[0]); i++)
        testenv_setenv(state_vars[i], NULL);
    struct cdm_activation a, b;
    fill(&a, "/w/a", "9.1.0.70-cuda12");
    fill(&b, "/w/b", "8.9.7.29-cuda12");
    ok(!cdm_activation_is_current(&a), "nothing is current before activation");

    struct cdm_env_plan plan;
    is_int(cdm_activation_plan(ctx, &a, &plan), CDM_OK, "cdm_activation_plan plans");
    const struct cdm_env_change *list = path_list(&plan);
    ok(list != NULL, "the plan puts an entry first on the loader's path list");
    char *list_name = list ? strdup(list->name) : strdup("PATH");
    char *before = env(list_name) ? strdup(env(list_name)) : NULL;
    char *text = NULL;
    const char *bad = cdm_shell_render(cdm_shell_find("bash"), &plan, &text);
    ok(!bad && text && strstr(text, "export CDM_ACTIVE='9.1.0.70-cuda12'\n"),
       "cdm_shell_render writes it for bash");
    free(text);
    apply(&plan);
    cdm_env_plan_free(&plan);
    is_str(env("CDM_ACTIVE"), "9.1.0.70-cuda12", "applied, CDM_ACTIVE names the install");
    ok(cdm_activation_is_current(&a), "cdm_activation_is_current sees it");
    ok(!cdm_activation_is_current(&b), "and not another project's");

    is_int(cdm_activation_plan(ctx, &b, &plan), CDM_OK, "switching to another project plans");
    apply(&plan);
    cdm_env_plan_free(&plan);
    ok(cdm_activation_is_current(&b) && !cdm_activation_is_current(&a), "which is current then");

    cdm_deactivation_plan(&plan);
    ok(plan.n > 0, "cdm_deactivation_plan undoes it");
    apply(&plan);
    cdm_env_plan_free(&plan);
    is_str(env(list_name), before, "the path list is as it was before the first activation");
    ok(!env("CUDA_PATH") && !env("CDM_ACTIVE"), "CUDA_PATH and CDM_ACTIVE are unset again");
    cdm_deactivation_plan(&plan);
    is_int(plan.n, 0, "deactivating twice plans nothing");
    free(list_name);
    free(before);
}

static void test_unlistable(cdm_ctx *ctx)
{
    struct cdm_activation a;
    fill(&a, "/w/a:b;c", "9.1.0.70-cuda12");
    struct cdm_env_plan plan;
    is_int(cdm_activation_plan(ctx, &a, &plan), CDM_EUNSUPPORTED,
           "a folder holding the path list's separator cannot be activated");
    ok(strstr(cdm_error_message(ctx), "rename or move the project folder") != NULL,
       "the context says what to do: %s", cdm_error_message(ctx));
}

int main(void)
{
    cdm_ctx *ctx = NULL;
    /* the context only carries errors here: a bad per-user config does not matter */
    struct cdm_options options = {.root = "."};
    cdm_ctx_new(&ctx, &options);
    test_shells();
    test_cycle(ctx);
    test_unlistable(ctx);
    cdm_ctx_free(ctx);
    return tap_done();
}
