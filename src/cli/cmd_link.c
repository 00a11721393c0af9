#include "cli.h"

int cmd_link(struct cli *cli, int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL};
    const char *cuda_text = NULL, *name = NULL;
    const struct cli_option options[] = {
        {"--name", &name, NULL},
        {"--cuda", &cuda_text, NULL},
        {NULL, NULL, NULL},
    };
    int cuda;
    int rc = cli_parse(cli, argc, argv, options, pos, 1, 2);
    if (rc || (rc = cli_parse_cuda(cli, cuda_text, &cuda)))
        return rc;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_link_request req = {pos[0], pos[1], cuda, name};
    struct cdm_link_result result;
    if (cdm_link(ctx, &req, &result) != CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "linked");
    return EXIT_OK;
}
