/* cdm gc: leftovers of interrupted work. */
#include "cli.h"

#include <stdio.h>

static int run_gc(struct cli *cli, const struct cli_args *args)
{
    (void)args;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    unsigned removed = 0;
    if (cdm_gc(ctx, &removed) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_int(&j, "removed", removed);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli, removed ? "removed %u leftover(s)\n" : "nothing to clean up\n", removed);
    }
    return EXIT_OK;
}

const struct cli_command cli_cmd_gc = {
    .name = "gc",
    .run = run_gc,
    .summary = "clean up leftovers of interrupted work",
};
