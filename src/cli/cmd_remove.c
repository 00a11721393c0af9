#include "cli.h"

#include <stdio.h>

int cmd_remove(struct cli *cli, int argc, char **argv)
{
    const char *spec = NULL, *cuda_text = NULL;
    bool force = false;
    const struct cli_option options[] = {
        {"--cuda", &cuda_text, NULL},
        {"--force", NULL, &force},
        {NULL, NULL, NULL},
    };
    int cuda;
    int rc = cli_parse(cli, argc, argv, options, &spec, 1, 1);
    if (rc || (rc = cli_parse_cuda(cli, cuda_text, &cuda)))
        return rc;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_remove_request req = {spec, cuda, force};
    struct cdm_install_info removed;
    if (cdm_remove(ctx, &req, &removed) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "id", removed.id);
        json_kv_string(&j, "path", removed.path);
        json_kv_bool(&j, "changed", true);
        json_object_end(&j);
    } else {
        cli_info(cli, "removed %s ('%s')\n", removed.id, removed.path);
    }
    return EXIT_OK;
}
