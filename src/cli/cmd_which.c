#include "cli.h"

int cmd_which(struct cli *cli, int argc, char **argv)
{
    const char *project = NULL;
    cdm_ctx *ctx = NULL;
    int rc = cli_start(cli, argc, argv, NULL, &project, 0, 1, &ctx);
    if (rc)
        return rc;
    struct cdm_which_info w;
    if (cdm_which(ctx, project, &w) != CDM_OK)
        return cli_fail(cli);
    cli_print_which(cli, &w);
    return EXIT_OK;
}
