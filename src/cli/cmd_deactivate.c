/* cdm deactivate: print the lines that undo activation exactly. */
#include "cli.h"

enum { OPT_SHELL };

static int run_deactivate(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    (void)ctx; /* none: deactivating works without a store or a readable configuration */
    const cdm_shell *sh;
    int rc = cli_choose_shell(cli, args->value[OPT_SHELL], &sh);
    if (rc)
        return rc;
    struct cdm_env_plan plan;
    cdm_deactivation_plan(&plan);
    if (plan.n == 0)
        cli_info(cli, "cdm: nothing is active in this shell\n");
    rc = cli_print_plan(cli, sh, &plan);
    cdm_env_plan_free(&plan);
    return rc;
}

static const struct cli_option deactivate_options[] = {
    [OPT_SHELL] = CLI_OPT_SHELL,
    CLI_OPT_END,
};

const struct cli_command cli_cmd_deactivate = {
    .name = "deactivate",
    .needs = CLI_NEEDS_NOTHING,
    .run = run_deactivate,
    .summary = "print shell lines that undo activate exactly",
    .options = deactivate_options,
};
