#include "cli.h"

int cmd_unlink(struct cli *cli, int argc, char **argv)
{
    const char *project = NULL;
    bool forget = false;
    const struct cli_option options[] = {
        {"--forget", NULL, &forget},
        {NULL, NULL, NULL},
    };
    cdm_ctx *ctx = NULL;
    int rc = cli_start(cli, argc, argv, options, &project, 1, 1, &ctx);
    if (rc)
        return rc;
    struct cdm_link_result result;
    if (cdm_unlink(ctx, project, forget, &result) != CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "unlinked");
    return EXIT_OK;
}
