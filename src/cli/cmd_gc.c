#include "cli.h"

#include <stdio.h>

int cmd_gc(struct cli *cli, int argc, char **argv)
{
    cdm_ctx *ctx = NULL;
    int rc = cli_start(cli, argc, argv, NULL, NULL, 0, 0, &ctx);
    if (rc)
        return rc;
    unsigned removed = 0;
    if (cdm_gc(ctx, &removed) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_int(&j, "removed", removed);
        json_object_end(&j);
    } else {
        cli_info(cli, removed ? "removed %u leftover(s)\n" : "nothing to clean up\n", removed);
    }
    return EXIT_OK;
}
