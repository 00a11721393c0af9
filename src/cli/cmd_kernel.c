/* cdm kernel install|remove: Jupyter kernels that start through cdm exec. */
#include "cli.h"

#include <string.h>

enum { OPT_PYTHON, OPT_NAME, OPT_PREFIX };

static void print_result(struct cli *cli, const struct cdm_kernel_result *r, bool install)
{
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "name", r->name);
        json_kv_string(&j, "path", r->path);
        json_kv_bool(&j, "changed", r->changed);
        if (install) {
            json_kv_string(&j, "display_name", r->display_name);
            json_kv_string(&j, "python", r->python);
            json_kv_string(&j, "project", r->project);
            json_kv_string(&j, "install", r->install_id);
        }
        json_object_end(&j);
        json_print(&j, stdout);
    } else if (install) {
        cli_info(cli, "%s the Jupyter kernel '%s' (\"%s\") in '%s': %s through cdm exec\n",
                 r->changed ? "wrote" : "kept", r->name, r->display_name, r->path, r->python);
    } else {
        cli_info(cli,
                 r->changed ? "removed the Jupyter kernel '%s' ('%s')\n"
                            : "no Jupyter kernel '%s' to remove ('%s')\n",
                 r->name, r->path);
    }
}

static int check_kernel(struct cli *cli, const struct cli_args *args)
{
    const char *action = args->pos[0];
    bool install = !strcmp(action, "install");
    if (!install && strcmp(action, "remove"))
        return cli_usage_error(cli, "'%s' is not install or remove", action);
    if (!install && !args->pos[1])
        return cli_usage_error(cli, "give the name of the kernel to remove");
    return EXIT_OK;
}

static int run_kernel(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    bool install = !strcmp(args->pos[0], "install");
    struct cdm_kernel_result r;
    int rc;
    if (install) {
        struct cdm_kernel_request req = {args->pos[1], args->value[OPT_PYTHON],
                                         args->value[OPT_NAME], args->value[OPT_PREFIX]};
        rc = cdm_kernel_install(ctx, &req, &r);
    } else {
        rc = cdm_kernel_remove(ctx, args->pos[1], args->value[OPT_PREFIX], &r);
    }
    if (rc != CDM_OK)
        return cli_fail(cli);
    print_result(cli, &r, install);
    return EXIT_OK;
}

static const struct cli_arg kernel_args[] = {
    {"install|remove", CLI_ARG_REQUIRED, CLI_COMPLETE_CHOICES},
    {"PROJECT|NAME", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option kernel_options[] = {
    [OPT_PYTHON] = CLI_OPT_VALUE("python", "PY", CLI_COMPLETE_FILES,
                                 "install: the interpreter the kernel runs (with ipykernel); "
                                 "default: the project's .venv or venv, VIRTUAL_ENV, else "
                                 "python3 on PATH"),
    [OPT_NAME] = CLI_OPT_VALUE("name", "NAME", CLI_COMPLETE_NONE,
                               "install: the kernel's name (default: cdm-<project folder>)"),
    [OPT_PREFIX] = CLI_OPT_VALUE("prefix", "DIR", CLI_COMPLETE_DIRS,
                                 "the kernelspec under DIR/share/jupyter/kernels instead of "
                                 "Jupyter's user data folder"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_kernel = {
    .name = "kernel",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_kernel,
    .run = run_kernel,
    .summary = "make a Jupyter kernel that runs with a project's cuDNN",
    .args = kernel_args,
    .options = kernel_options,
    .description =
        "install [PROJECT]: writes a Jupyter kernelspec whose kernel starts through 'cdm exec "
        "PROJECT', so a notebook on it loads the project's cuDNN (notebooks never see a "
        "shell's activation). Its display name names the project and the version linked "
        "when it was written; a later link or rollback of the project applies all the same. "
        "'jupyter kernelspec list' shows it.\n"
        "remove NAME: takes away a kernelspec cdm wrote; one it did not write is refused.\n"
        " cdm kernel install ~/src/project_a\n"
        " cdm kernel remove cdm-project_a\n",
};
