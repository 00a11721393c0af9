/* cdm rollback: a project back to an earlier generation, as a new one. */
#include "cli.h"

#include <limits.h>

enum { OPT_TO, OPT_FORCE };

static int run_rollback(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_link_result result;
    if (cdm_rollback(ctx, args->pos[0], args->number[OPT_TO], args->given[OPT_FORCE], &result) !=
        CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "rolled back");
    return EXIT_OK;
}

static const struct cli_arg rollback_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option rollback_options[] = {
    [OPT_TO] = CLI_OPT_INT("to", "GEN", CLI_COMPLETE_GENERATIONS, 1, LLONG_MAX,
                           "a generation number (see 'cdm history')",
                           "go back to generation GEN (see 'cdm history')"),
    [OPT_FORCE] = CLI_OPT_FLAG("force", "roll back to a version that a Python environment "
                                        "attached to the project would refuse (with a warning)"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_rollback = {
    .name = "rollback",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_rollback,
    .summary = "go back to a project's previous generation",
    .args = rollback_args,
    .options = rollback_options,
    .description = "PROJECT defaults to the nearest folder upwards with a link or pin file.\n"
                   "The rollback is a new generation: rolling back twice returns.\n",
};
