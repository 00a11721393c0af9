#include "cli.h"

#include <stdlib.h>

int cmd_rollback(struct cli *cli, int argc, char **argv)
{
    const char *project = NULL, *to_text = NULL;
    const struct cli_option options[] = {
        {"--to", &to_text, NULL},
        {NULL, NULL, NULL},
    };
    int rc = cli_parse(cli, argc, argv, options, &project, 1, 1);
    if (rc)
        return rc;
    long long to = 0;
    if (to_text) {
        char *end;
        to = strtoll(to_text, &end, 10);
        if (end == to_text || *end || to < 1)
            return cli_usage_error(cli,
                                   "--to takes a generation number (see 'cdm history'), "
                                   "not '%s'",
                                   to_text);
    }
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_link_result result;
    if (cdm_rollback(ctx, project, to, &result) != CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "rolled back");
    return EXIT_OK;
}
