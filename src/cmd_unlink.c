#include "cli.h"

int cmd_unlink(struct cli *cli, int argc, char **argv)
{
    const char *project = NULL;
    bool forget = false;
    const struct cli_option options[] = {
        {"--forget", NULL, &forget},
        {NULL, NULL, NULL},
    };
    int rc = cli_parse(cli, argc, argv, options, &project, 1, 1);
    if (rc)
        return rc;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_link_result result;
    if (cdm_unlink(ctx, project, forget, &result) != CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "unlinked");
    return EXIT_OK;
}
