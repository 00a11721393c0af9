/* cdm link: a project's link to an install, and its pin file. */
#include "cli.h"

enum { OPT_NAME, OPT_CUDA };
enum { ARG_PROJECT, ARG_VERSION };

static int run_link(struct cli *cli, const struct cli_args *args)
{
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_link_request req = {args->pos[ARG_PROJECT], args->pos[ARG_VERSION],
                                   (int)args->number[OPT_CUDA], args->value[OPT_NAME]};
    struct cdm_link_result result;
    if (cdm_link(ctx, &req, &result) != CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "linked");
    return EXIT_OK;
}

static const struct cli_arg link_args[] = {
    [ARG_PROJECT] = {"PROJECT", CLI_ARG_REQUIRED, CLI_COMPLETE_DIRS},
    [ARG_VERSION] = {"VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option link_options[] = {
    [OPT_NAME] = CLI_OPT_VALUE("name", "NAME", CLI_COMPLETE_NONE,
                               "the link's name (default: the project's, or [link] name)"),
    [OPT_CUDA] = CLI_OPT_CUDA,
    CLI_OPT_END,
};

const struct cli_command cli_cmd_link = {
    .name = "link",
    .run = run_link,
    .summary = "link a project to an installed version",
    .args = link_args,
    .options = link_options,
    .description = "Creates or switches PROJECT/cuda_link and writes PROJECT/.cudnn-version.\n"
                   "VERSION omitted: the one in the project's .cudnn-version pin file.\n",
};
