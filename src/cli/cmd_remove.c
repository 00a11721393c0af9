/* cdm remove: an install out of the store. */
#include "cli.h"

#include <stdio.h>

enum { OPT_CUDA, OPT_FORCE };

static int run_remove(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_remove_request req = {args->pos[0], (int)args->number[OPT_CUDA],
                                     args->given[OPT_FORCE]};
    struct cdm_install_info removed;
    if (cdm_remove(ctx, &req, &removed) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "id", removed.id);
        json_kv_string(&j, "path", removed.path);
        json_kv_bool(&j, "changed", true);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli, "removed %s ('%s')\n", removed.id, removed.path);
    }
    return EXIT_OK;
}

static const struct cli_arg remove_args[] = {
    {"VERSION", CLI_ARG_REQUIRED, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option remove_options[] = {
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_FORCE] = CLI_OPT_FLAG("force", "unlink the projects that use it first"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_remove = {
    .name = "remove",
    .needs = CLI_NEEDS_STORE_WRITE,
    .run = run_remove,
    .summary = "remove an installed version",
    .args = remove_args,
    .options = remove_options,
};
