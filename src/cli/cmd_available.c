/* cdm available: the archives NVIDIA's manifests at [fetch] base offer. */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

enum { OPT_CUDA, OPT_PLATFORM, OPT_FROM };

static int run_available(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    const char *spec = args->pos[0], *platform = args->value[OPT_PLATFORM];
    int cuda = (int)args->number[OPT_CUDA];
    struct cdm_available_request req = {spec, cuda, platform, args->value[OPT_FROM]};
    if (req.from && strcmp(req.from, "nvidia") && strcmp(req.from, "pypi"))
        return cli_usage_error(cli, "--from takes nvidia or pypi, not '%s'", req.from);
    struct cdm_offer *offers = NULL;
    size_t n = 0;
    if (cdm_available(ctx, &req, &offers, &n) != CDM_OK)
        return cli_fail(cli);
    struct json j;
    json_init(&j);
    if (cli->json)
        json_array_begin(&j);
    else if (n == 0)
        cli_info(cli, "no cuDNN%s%s for %s%s at this [fetch] base\n", spec ? " " : "",
                 spec ? spec : "", platform ? platform : cdm_host_platform(),
                 cuda ? " with that CUDA variant" : "");
    else
        cli_printf("%-12s %-5s %-15s %10s  %s\n", "VERSION", "CUDA", "PLATFORM", "SIZE", "ARCHIVE");
    for (size_t i = 0; i < n; i++) {
        const struct cdm_offer *o = &offers[i];
        if (cli->json) {
            json_object_begin(&j);
            json_kv_string(&j, "version", o->version);
            json_kv_int(&j, "cuda", o->cuda);
            json_kv_string(&j, "platform", o->platform);
            json_kv_int(&j, "size", (long long)o->size);
            json_kv_string(&j, "sha256", o->sha256);
            json_kv_string(&j, "url", o->url);
            json_kv_string(&j, "archive", o->name);
            json_object_end(&j);
        } else {
            char size[32];
            format_size(size, sizeof(size), o->size);
            cli_printf("%-12s %-5d %-15s %10s  %s\n", o->version, o->cuda, o->platform, size,
                       o->name);
        }
    }
    if (cli->json) {
        json_array_end(&j);
        json_print(&j, stdout);
    } else {
        json_free(&j);
    }
    free(offers);
    return EXIT_OK;
}

static const struct cli_arg available_args[] = {
    {"VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_NONE},
    CLI_ARG_END,
};

static const struct cli_option available_options[] = {
    [OPT_CUDA] =
        CLI_OPT_INT("cuda", "N", CLI_COMPLETE_NONE, 1, 99, "a CUDA major version such as 12",
                    "only this CUDA major's build variants"),
    [OPT_PLATFORM] = CLI_OPT_VALUE("platform", "P|all", CLI_COMPLETE_NONE,
                                   "another platform's archives (windows-x86_64, linux-sbsa), "
                                   "or all"),
    [OPT_FROM] = CLI_OPT_VALUE("from", "SOURCE", CLI_COMPLETE_NONE,
                               "nvidia ([fetch] base, the default) or pypi (NVIDIA's wheels on "
                               "[fetch] index_url)"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_available = {
    .name = "available",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_available,
    .summary = "list the cuDNN archives [fetch] base offers",
    .args = available_args,
    .options = available_options,
    .description =
        "Reads NVIDIA's redistrib_*.json manifests at [fetch] base (all of them without "
        "VERSION), for this machine's platform unless --platform says otherwise.\n"
        "--json prints an array of {\"version\", \"cuda\", \"platform\", \"size\", \"sha256\", "
        "\"url\", \"archive\"}.\n",
};
