#include "cli.h"

int cmd_which(struct cli *cli, int argc, char **argv)
{
    const char *project = NULL;
    int rc = cli_parse(cli, argc, argv, NULL, &project, 0, 1);
    if (rc)
        return rc;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_which w;
    if (cdm_which(ctx, project, &w) != CDM_OK)
        return cli_fail(cli);
    cli_print_which(cli, &w);
    return EXIT_OK;
}
