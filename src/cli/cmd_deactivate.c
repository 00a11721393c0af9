/* cdm deactivate: print the lines that undo activation exactly. */
#include "cli.h"
#include "engine/shell.h"

int cmd_deactivate(struct cli *cli, int argc, char **argv)
{
    const char *shell_text = NULL;
    const struct cli_option options[] = {
        {"--shell", &shell_text, NULL},
        {NULL, NULL, NULL},
    };
    const struct shell *sh;
    int rc = cli_parse(cli, argc, argv, options, NULL, 0, 0);
    if (rc || (rc = cli_choose_shell(cli, shell_text, &sh)))
        return rc;
    struct env_plan plan;
    struct env_snapshot env = {NULL, 0};
    deactivation_plan(shell_host_platform(), env_snapshot_get, &env, &plan);
    env_snapshot_free(&env); /* the plan holds copies */
    if (plan.n == 0)
        cli_info(cli, "cdm: nothing is active in this shell\n");
    rc = cli_print_plan(cli, sh, &plan);
    env_plan_free(&plan);
    return rc;
}
