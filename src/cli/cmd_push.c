/* cdm push: an install's archive stored in an OCI registry. */
#include "cli.h"

#include <stdlib.h>

enum { OPT_CUDA, OPT_ARCHIVE };

static int run_push(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_push_request req = {
        .spec = args->pos[0],
        .cuda = (int)args->number[OPT_CUDA],
        .target = args->pos[1],
        .archive = args->value[OPT_ARCHIVE],
    };
    cli_catch_interrupts(ctx);
    struct cdm_push_result r;
    if (cdm_push(ctx, &req, &r) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "install", r.id);
        json_kv_string(&j, "reference", r.reference);
        json_kv_string(&j, "digest", r.digest);
        json_kv_string(&j, "layer", r.layer);
        json_kv_int(&j, "size", (long long)r.size);
        json_kv_bool(&j, "layer_sent", r.layer_sent);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli, "pushed %s to %s (%s)\n", r.id, r.reference, r.digest);
        cli_info(cli, "  archive %s, %llu bytes%s\n", r.layer, (unsigned long long)r.size,
                 r.layer_sent ? "" : " (the registry had it already)");
    }
    return EXIT_OK;
}

static const struct cli_arg push_args[] = {
    {"VERSION", CLI_ARG_REQUIRED, CLI_COMPLETE_INSTALLS},
    {"oci://REGISTRY/REPOSITORY[:TAG]", CLI_ARG_REQUIRED, CLI_COMPLETE_NONE},
    CLI_ARG_END,
};

static const struct cli_option push_options[] = {
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_ARCHIVE] = CLI_OPT_VALUE("archive", "FILE", CLI_COMPLETE_FILES,
                                  "the archive the install came from (default: found in "
                                  "[install] sources)"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_push = {
    .name = "push",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_push,
    .summary = "store an install's archive in an OCI registry",
    .args = push_args,
    .options = push_options,
    .description =
        "Stores the archive an install came from in an OCI registry (the distribution API: "
        "Harbor, Artifactory, GHCR, ECR, the CNCF registry) as an artifact of one layer, the "
        "archive's very bytes, so its digest is the SHA-256 a cudnn.lock names; a small config "
        "says which install it is. The archive is taken from [install] sources (or --archive) "
        "and held to the install's record first. The tag defaults to VERSION-cudaN-PLATFORM. "
        "Credentials: CDM_REGISTRY_USERNAME and CDM_REGISTRY_PASSWORD, else those of 'docker "
        "login' (~/.docker/config.json) or REGISTRY_AUTH_FILE; the registry's token service is "
        "asked for a token as container tools do. Plain HTTP only on loopback or for [fetch] "
        "insecure_registries. 'cdm install oci://REGISTRY/REPOSITORY:TAG', and [fetch] "
        "sources = oci://REGISTRY/REPOSITORY for versions, read it back.\n"
        " cdm push 9.1 oci://registry.example.com/ml/cudnn\n"
        " cdm install oci://registry.example.com/ml/cudnn:9.1.0.70-cuda12-linux-x86_64\n",
};
