/* cdm toolkits: the CUDA toolkits found on this machine. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_toolkits(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    (void)args;
    struct cdm_toolkit *v = NULL;
    size_t n = 0;
    if (cdm_toolkits(ctx, &v, &n) != CDM_OK)
        return cli_fail(cli);
    struct json j;
    json_init(&j);
    if (cli->json)
        json_array_begin(&j);
    else if (n == 0)
        cli_info(cli, "no CUDA toolkit found (see 'cdm help toolkits' for where cdm looks)\n");
    else
        cli_printf("%-12s %-20s %s\n", "VERSION", "FOUND BY", "FOLDER");
    for (size_t i = 0; i < n; i++) {
        const struct cdm_toolkit *t = &v[i];
        if (cli->json) {
            json_object_begin(&j);
            json_kv_string(&j, "version", t->version);
            json_kv_string(&j, "path", t->path);
            json_kv_string(&j, "real_path", t->real);
            json_kv_string(&j, "found_by", t->found_by);
            json_kv_string(&j, "version_from", t->source);
            json_object_end(&j);
        } else if (strcmp(t->path, t->real)) {
            cli_printf("%-12s %-20s %s -> %s\n", t->version, t->found_by, t->path, t->real);
        } else {
            cli_printf("%-12s %-20s %s\n", t->version, t->found_by, t->path);
        }
    }
    if (cli->json) {
        json_array_end(&j);
        json_print(&j, stdout);
    } else {
        json_free(&j);
    }
    free(v);
    return EXIT_OK;
}

const struct cli_command cli_cmd_toolkits = {
    .name = "toolkits",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_toolkits,
    .summary = "list the CUDA toolkits on this machine",
    .description =
        "Lists the CUDA toolkits cdm finds, each folder once, in the order it looks: on "
        "Windows CUDA_PATH, the CUDA_PATH_V*_* variables, then the registry keys NVIDIA's "
        "installer writes (HKLM\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA); "
        "elsewhere CUDA_HOME, CUDA_PATH, /usr/local/cuda, /usr/local/cuda-*, /opt/cuda. The "
        "version comes from the folder's version.json, else version.txt, else bin/nvcc "
        "--version.\n"
        "'cdm link PROJECT VERSION --toolkit X.Y' records one of them with a project.\n",
};
