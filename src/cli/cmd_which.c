/* cdm which: the install a project uses and where its link points. */
#include "cli.h"

static int run_which(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_which_info w;
    if (cdm_which(ctx, args->pos[0], &w) != CDM_OK)
        return cli_fail(cli);
    cli_print_which(cli, &w);
    return EXIT_OK;
}

static const struct cli_arg which_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

const struct cli_command cli_cmd_which = {
    .name = "which",
    .needs = CLI_NEEDS_STORE_READ,
    .run = run_which,
    .summary = "show the version a project uses and where its link points",
    .args = which_args,
    .description = "PROJECT defaults to the nearest folder upwards with a link or pin file.\n",
};
