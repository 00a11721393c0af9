/* cdm unlink: a project's link removed, never its target. */
#include "cli.h"

enum { OPT_FORGET, OPT_DRY_RUN };

static int run_unlink(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_link_result result;
    if (cdm_unlink(ctx, args->pos[0], args->given[OPT_FORGET], args->given[OPT_DRY_RUN], &result) !=
        CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "unlinked");
    return EXIT_OK;
}

static const struct cli_arg unlink_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option unlink_options[] = {
    [OPT_FORGET] = CLI_OPT_FLAG("forget", "also delete the .cudnn-version pin file"),
    [OPT_DRY_RUN] = CLI_OPT_FLAG("dry-run", "say what would change, change nothing"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_unlink = {
    .name = "unlink",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_unlink,
    .summary = "remove a project's link (never its target)",
    .args = unlink_args,
    .options = unlink_options,
    .description = "PROJECT defaults to the nearest folder upwards with a link or pin file.\n",
};
