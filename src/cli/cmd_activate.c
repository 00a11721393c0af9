/* cdm activate: print the lines that point a shell at a project's cuDNN. */
#include "cli.h"
#include "engine/shell.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

int cli_choose_shell(struct cli *cli, const char *given, const struct shell **out)
{
    const char *from = "--shell";
    const char *name = given;
    if (!name && (name = nonempty(getenv("CDM_SHELL"))))
        from = "CDM_SHELL";
    if (!name && (*out = shell_find(shell_parent_name())))
        return EXIT_OK;
    if (!name && (name = nonempty(getenv("SHELL"))))
        from = "SHELL";
    if (!name)
        return cli_usage_error(cli, "cannot tell which shell this is; pass --shell (one of: %s)",
                               shell_names());
    if (!(*out = shell_find(name)))
        return cli_usage_error(cli,
                               "%s names '%s', a shell cdm cannot write for; pass --shell "
                               "(one of: %s)",
                               from, name, shell_names());
    return EXIT_OK;
}

int cli_print_plan(struct cli *cli, const struct shell *sh, const struct env_plan *plan)
{
    (void)cli;
    struct strbuf text = STRBUF_INIT;
    const char *bad = shell_render(sh, shell_host_platform(), plan, &text);
    if (bad) {
        fprintf(stderr,
                "cdm: cannot write %s for %s: its value holds a quote or line break, "
                "which %s cannot set; use another shell\n",
                bad, shell_name(sh), shell_name(sh));
        sb_free(&text);
        return EXIT_FAIL;
    }
    fputs(sb_str(&text), stdout);
    sb_free(&text);
    return EXIT_OK;
}

/* Why target cannot be activated (activation_plan said no): its path entry holds the
 * path list's separator. */
static void say_unlistable(const struct activation_target *t)
{
    const struct shell_platform *pf = shell_host_platform();
    char *entry = activation_entry(pf, t);
    fprintf(stderr,
            "cdm: cannot put '%s' on %s: its name holds '%c', which separates %s "
            "entries; rename or move the project folder\n",
            entry, pf->path_var, pf->list_sep, pf->path_var);
    free(entry);
}

static void target_of(const struct cdm_activation *a, struct activation_target *t)
{
    const struct shell_platform *pf = shell_host_platform();
    t->id = a->id;
    t->project = a->project;
    t->link_path = a->link_path;
    t->lib_dir = pf->use_bin_dir ? a->bin_dir : a->lib_dir;
}

static bool same(struct env_snapshot *env, const char *name, const char *want)
{
    const char *v = env_snapshot_get(env, name);
    return v && !strcmp(v, want);
}

/* --auto, for the prompt hooks: follow the working folder. Outside any project deactivate;
 * in the project already active (same install, same entry) do nothing; in another activate it (or,
 * when it cannot be, say why and deactivate, since the old project's cuDNN no longer belongs here).
 */
static int activate_auto(struct cli *cli, const struct shell *sh, const char *start)
{
    const struct shell_platform *pf = shell_host_platform();
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct env_plan plan = {.n = 0};
    struct env_snapshot env = {NULL, 0};
    struct cdm_project project;
    struct cdm_activation a;
    int rc = EXIT_OK;
    if (cdm_project_find(ctx, start, &project) != CDM_OK) {
        deactivation_plan(pf, env_snapshot_get, &env, &plan);
    } else if (cdm_activation_find(ctx, project.path, false, &a) != CDM_OK) {
        if (!cli->quiet)
            fprintf(stderr, "cdm: %s\n", cdm_error_message(ctx));
        deactivation_plan(pf, env_snapshot_get, &env, &plan);
        rc = EXIT_FAIL;
    } else {
        struct activation_target t;
        target_of(&a, &t);
        char *entry = activation_entry(pf, &t);
        bool current = activation_is_on(pf, env_snapshot_get, &env) &&
                       same(&env, "CDM_ACTIVE", a.id) && same(&env, "CDM_PATH_ENTRY", entry);
        free(entry);
        if (!current && !activation_plan(pf, env_snapshot_get, &env, &t, &plan)) {
            say_unlistable(&t);
            deactivation_plan(pf, env_snapshot_get, &env, &plan);
            rc = EXIT_FAIL;
        }
    }
    int prc = cli_print_plan(cli, sh, &plan);
    env_plan_free(&plan);
    env_snapshot_free(&env);
    return prc ? prc : rc;
}

enum { OPT_SHELL, OPT_AUTO };

static int run_activate(struct cli *cli, const struct cli_args *args)
{
    const char *project = args->pos[0];
    const struct shell *sh;
    int rc = cli_choose_shell(cli, args->value[OPT_SHELL], &sh);
    if (rc)
        return rc;
    if (args->given[OPT_AUTO])
        return activate_auto(cli, sh, project);
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_activation a;
    if (cdm_activation_find(ctx, project, project == NULL, &a) != CDM_OK)
        return cli_fail(cli);
    struct activation_target t;
    target_of(&a, &t);
    struct env_plan plan;
    struct env_snapshot env = {NULL, 0};
    bool listable = activation_plan(shell_host_platform(), env_snapshot_get, &env, &t, &plan);
    env_snapshot_free(&env); /* the plan holds copies */
    if (!listable) {
        say_unlistable(&t);
        return EXIT_FAIL;
    }
    if (cli->json) {
        struct json j;
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "project", a.project);
        json_kv_string(&j, "link", a.link_path);
        json_kv_string(&j, "id", a.id);
        json_kv_string(&j, "shell", shell_name(sh));
        json_key(&j, "environment");
        json_object_begin(&j);
        for (size_t i = 0; i < plan.n; i++) {
            const struct env_change *c = &plan.v[i];
            char *v = NULL; /* null in JSON: unset */
            if (c->first && *c->value)
                v = xasprintf("%s%c%s", c->first, shell_host_platform()->list_sep, c->value);
            else if (c->first || c->value)
                v = xstrdup(c->first ? c->first : c->value);
            json_kv_string(&j, c->name, v);
            free(v);
        }
        json_object_end(&j);
        json_object_end(&j);
        env_plan_free(&plan);
        return EXIT_OK;
    }
    rc = cli_print_plan(cli, sh, &plan);
    env_plan_free(&plan);
    return rc;
}

static const struct cli_arg activate_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option activate_options[] = {
    [OPT_SHELL] = CLI_OPT_SHELL,
    [OPT_AUTO] = CLI_OPT_FLAG("auto", "for prompt hooks: follow the working folder (PROJECT: where "
                                      "to start), deactivate outside projects, print nothing when "
                                      "current"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_activate = {
    .name = "activate",
    .run = run_activate,
    .summary = "print shell lines that put a project's cuDNN in use",
    .args = activate_args,
    .options = activate_options,
    .description =
        "PROJECT defaults to the nearest folder upwards with a link or pin file. Use it as:\n"
        "  bash/zsh/sh:  eval \"$(cdm activate)\"\n"
        "  fish:         cdm activate --shell fish | source\n"
        "  PowerShell:   cdm activate --shell pwsh | Out-String | Invoke-Expression\n"
        "  cmd:          for /f \"delims=\" %i in ('cdm activate --shell cmd') do @%i\n",
};
