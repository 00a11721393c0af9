/* cdm activate: print the lines that point a shell at a project's cuDNN. */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

/* "pwsh powershell ...": the shells cdm writes for, for messages (malloc'd). */
static char *shell_list(void)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; cdm_shell_at(i); i++)
        sb_addf(&sb, "%s%s", i ? " " : "", cdm_shell_name(cdm_shell_at(i)));
    return sb_detach(&sb);
}

static int unknown_shell(struct cli *cli, const char *from, const char *name)
{
    char *list = shell_list();
    if (name)
        cli_usage_error(cli,
                        "%s names '%s', a shell cdm cannot write for; pass --shell (one of: %s)",
                        from, name, list);
    else
        cli_usage_error(cli, "cannot tell which shell this is; pass --shell (one of: %s)", list);
    free(list);
    return EXIT_USAGE;
}

int cli_choose_shell(struct cli *cli, const char *given, const cdm_shell **out)
{
    const char *from = "--shell";
    const char *name = given;
    if (!name && (name = nonempty(getenv("CDM_SHELL"))))
        from = "CDM_SHELL";
    if (!name && (*out = cdm_shell_parent()))
        return EXIT_OK;
    if (!name && (name = nonempty(getenv("SHELL"))))
        from = "SHELL";
    if (!name || !(*out = cdm_shell_find(name)))
        return unknown_shell(cli, from, name);
    return EXIT_OK;
}

/* The variable whose `set "NAME=...` line in text holds the byte at bad (malloc'd). */
static char *variable_at(const char *text, const char *bad)
{
    const char *line = bad;
    while (line > text && line[-1] != '\n')
        line--;
    const char *name = strncmp(line, "set \"", 5) ? line : line + 5;
    return xasprintf("%.*s", (int)strcspn(name, "="), name);
}

/* cmd reads a program's output in the console's code page, not in UTF-8 (nor do Windows'
 * code pages 437 and 850 hold every letter): the text goes in that code page, and a value
 * it cannot carry is refused rather than left to become other letters, another folder. */
static int print_for_cmd(const char *text)
{
    unsigned cp;
    const char *bad;
    char *encoded = cli_text_for_cmd(text, &cp, &bad);
    if (encoded) {
        fputs(encoded, stdout);
        free(encoded);
        return EXIT_OK;
    }
    char *name = variable_at(text, bad);
    cli_eprintf("cdm: cannot write %s for cmd: its value holds '%.*s', which cmd reads in code "
                "page %u (the console's) and that code page cannot carry; run 'chcp 65001' "
                "first (cdm then writes UTF-8), or activate in PowerShell "
                "('cdm activate --shell pwsh')\n",
                name, (int)strcspn(bad, " \\;\"\n"), bad, cp);
    free(name);
    return EXIT_FAIL;
}

int cli_print_plan(struct cli *cli, const cdm_shell *sh, const struct cdm_env_plan *plan)
{
    (void)cli;
    char *text;
    const char *bad = cdm_shell_render(sh, plan, &text);
    if (bad) {
        cli_eprintf("cdm: cannot write %s for %s: its value holds a quote or line break, "
                    "which %s cannot set; use another shell\n",
                    bad, cdm_shell_name(sh), cdm_shell_name(sh));
        return EXIT_FAIL;
    }
    int rc = EXIT_OK;
    if (!strcmp(cdm_shell_name(sh), "cmd"))
        rc = print_for_cmd(text);
    else
        fputs(text, stdout);
    free(text);
    return rc;
}

/* --hook-state: after the plan, the state the hook compares before the next prompt (as
 * variables of the shell, not exported), so it starts cdm again only when one differs. */
static int print_hook_state(const cdm_shell *sh, const struct cdm_hook_state *st)
{
    const struct {
        const char *name, *value;
    } vars[] = {
        {"_cdm_hook_dir", st->dir},
        {"_cdm_hook_name", st->link_name},
        {"_cdm_hook_link", st->link},
        {"_cdm_hook_target", st->target},
        {"_cdm_hook_default", st->default_file},
        {"_cdm_hook_config", st->config},
    };
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < CDM_ARRAY_LEN(vars); i++) {
        char *line = cdm_shell_assign(sh, vars[i].name, vars[i].value);
        if (!line) { /* the hook then asks cdm at every prompt, as it would without */
            sb_free(&sb);
            return EXIT_OK;
        }
        sb_add(&sb, line);
        free(line);
    }
    fputs(sb_str(&sb), stdout);
    sb_free(&sb);
    return EXIT_OK;
}

/* --auto, for the prompt hooks (cdm_activation_auto decides): the plan, after the reason
 * when the project cannot be activated (unless --quiet: the hooks run it so when the folder
 * did not change, so that is said once, when the user arrives), then the hook's state. */
static int activate_auto(struct cli *cli, cdm_ctx *ctx, const cdm_shell *sh, const char *start,
                         bool state)
{
    struct cdm_auto_activation r;
    int rc = cdm_activation_auto(ctx, start, state, &r) == CDM_OK ? EXIT_OK : EXIT_FAIL;
    if (r.unchanged)
        return r.has_state ? print_hook_state(sh, &r.state) : EXIT_OK;
    if (rc && (r.said_always || !cli->quiet))
        cli_eprintf("cdm: %s\n", cdm_error_message(ctx));
    int prc = cli_print_plan(cli, sh, &r.plan);
    cdm_env_plan_free(&r.plan);
    if (!prc && r.has_state)
        print_hook_state(sh, &r.state);
    return prc ? prc : rc;
}

enum { OPT_SHELL, OPT_AUTO, OPT_HOOK_STATE, OPT_REDIRECT };

/* The shell and the options, before the context: a usage error needs no configuration. */
static int check_activate(struct cli *cli, const struct cli_args *args)
{
    const cdm_shell *sh;
    int rc = cli_choose_shell(cli, args->value[OPT_SHELL], &sh);
    if (rc)
        return rc;
    if ((args->given[OPT_AUTO] || args->given[OPT_HOOK_STATE]) && args->given[OPT_REDIRECT])
        return cli_usage_error(cli, "--redirect does not go with --auto: the hooks follow "
                                    "[activate] redirect in the configuration");
    return EXIT_OK;
}

static int run_activate(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    const char *project = args->pos[0];
    const cdm_shell *sh;
    int rc = cli_choose_shell(cli, args->value[OPT_SHELL], &sh); /* chosen in the check */
    if (rc)
        return rc;
    if (args->given[OPT_AUTO] || args->given[OPT_HOOK_STATE])
        return activate_auto(cli, ctx, sh, project, args->given[OPT_HOOK_STATE]);
    struct cdm_activation a;
    struct cdm_env_plan plan;
    if (cdm_activation_find(ctx, project, project == NULL, &a) != CDM_OK)
        return cli_fail(cli);
    if (args->given[OPT_REDIRECT])
        a.redirect = CDM_REDIRECT_ASKED;
    if (cdm_activation_plan(ctx, &a, &plan) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "project", a.project);
        json_kv_string(&j, "link", a.link_path);
        json_kv_string(&j, "id", a.id);
        json_kv_string(&j, "shell", cdm_shell_name(sh));
        json_key(&j, "environment");
        json_object_begin(&j);
        for (size_t i = 0; i < plan.n; i++) {
            char *v = cdm_env_change_value(&plan.v[i]); /* null in JSON: unset */
            json_kv_string(&j, plan.v[i].name, v);
            free(v);
        }
        json_object_end(&j);
        json_object_end(&j);
        json_print(&j, stdout);
        cdm_env_plan_free(&plan);
        return EXIT_OK;
    }
    rc = cli_print_plan(cli, sh, &plan);
    cdm_env_plan_free(&plan);
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
    [OPT_HOOK_STATE] = CLI_OPT_FLAG("hook-state", "as --auto, and set the variables that cdm "
                                                  "hook's snippet compares before each prompt"),
    [OPT_REDIRECT] = CLI_OPT_FLAG("redirect", "Linux: programs started from the shell load the "
                                              "install's cuDNN even by RPATH or path (LD_AUDIT, "
                                              "as cdm exec)"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_activate = {
    .name = "activate",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_activate,
    .run = run_activate,
    .summary = "print shell lines that put a project's cuDNN in use",
    .args = activate_args,
    .options = activate_options,
    .description =
        "PROJECT defaults to the nearest folder upwards with a link or pin file. Use it as:\n"
        "  bash/zsh/sh:  eval \"$(cdm activate)\"\n"
        "  fish:         cdm activate --shell fish | source\n"
        "  PowerShell:   cdm activate --shell pwsh | Out-String | Invoke-Expression\n"
        "  cmd:          for /f \"delims=\" %i in ('cdm activate --shell cmd') do @%i\n"
        "\n"
        "CUDNN_ROOT and CUDNN_ROOT_DIR are set with CUDNN_PATH. In the configuration, "
        "[activate] build_paths = true adds CMAKE_PREFIX_PATH, CPATH and LIBRARY_PATH; "
        "[activate] redirect = true (or --redirect, Linux only) adds the LD_AUDIT redirect "
        "of cdm exec.\n",
};
