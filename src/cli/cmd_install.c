#include "cli.h"

#include <stdio.h>

int cmd_install(struct cli *cli, int argc, char **argv)
{
    const char *what = NULL, *cuda_text = NULL, *sha256 = NULL, *platform = NULL;
    bool force = false;
    const struct cli_option options[] = {
        {"--cuda", &cuda_text, NULL}, {"--sha256", &sha256, NULL}, {"--platform", &platform, NULL},
        {"--force", NULL, &force},    {NULL, NULL, NULL},
    };
    int cuda;
    int rc = cli_parse(cli, argc, argv, options, &what, 1, 1);
    if (rc || (rc = cli_parse_cuda(cli, cuda_text, &cuda)))
        return rc;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_install_request req = {what, cuda, sha256, platform, force};
    struct cdm_install_result result;
    if (cdm_install(ctx, &req, &result) != CDM_OK)
        return cli_fail(cli);
    const struct cdm_install_info *in = &result.install;
    if (cli->json) {
        struct json j;
        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "id", in->id);
        json_kv_string(&j, "version", in->version);
        json_kv_int(&j, "cuda", in->cuda);
        json_kv_string(&j, "path", in->path);
        json_kv_string(&j, "sha256", in->sha256);
        json_kv_bool(&j, "changed", result.changed);
        json_kv_bool(&j, "official", in->official);
        json_object_end(&j);
    } else if (result.changed) {
        cli_info(cli, "installed %s%s into '%s'\n", in->id,
                 in->official ? " (official NVIDIA archive)" : "", in->path);
        if (cli->verbose)
            cli_info(cli,
                     "  archive %s, sha256 %s\n  layout %s, bin '%s', lib '%s', include '%s'\n",
                     in->archive_name, in->sha256, in->layout, in->bin_dir, in->lib_dir,
                     in->include_dir);
    } else {
        cli_info(cli, "%s is already installed from this archive; nothing to do\n", in->id);
    }
    return EXIT_OK;
}
