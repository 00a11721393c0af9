/* cdm fetch: an archive and its manifest into a folder, for an offline install. */
#include "cli.h"

#include <stdio.h>

enum { OPT_INTO, OPT_CUDA, OPT_PLATFORM };

static int run_fetch(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    const char *into = args->value[OPT_INTO];
    struct cdm_fetch_request req = {args->pos[0], (int)args->number[OPT_CUDA],
                                    args->value[OPT_PLATFORM], into};
    struct cdm_fetch_result r;
    cli_catch_interrupts(ctx);
    if (cdm_fetch(ctx, &req, &r) != CDM_OK) {
        int rc = cli_fail(cli);
        return cdm_interrupted(ctx) ? EXIT_INTERRUPTED : rc;
    }
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "version", r.offer.version);
        json_kv_int(&j, "cuda", r.offer.cuda);
        json_kv_string(&j, "platform", r.offer.platform);
        json_kv_int(&j, "size", (long long)r.offer.size);
        json_kv_string(&j, "sha256", r.offer.sha256);
        json_kv_string(&j, "url", r.offer.url);
        json_kv_string(&j, "path", r.path);
        json_kv_string(&j, "manifest", r.manifest);
        json_kv_bool(&j, "changed", r.changed);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli, "%s '%s' (sha256 checked against '%s')\n",
                 r.changed ? "fetched" : "already there:", r.path,
                 r.manifest[0] ? r.manifest : "cdm's table of archives older than the manifests");
        cli_info(cli,
                 "install it offline with 'cdm install %s', or with that folder as "
                 "[install] sources or [fetch] base\n",
                 r.path);
    }
    return EXIT_OK;
}

static const struct cli_arg fetch_args[] = {
    {"VERSION", CLI_ARG_REQUIRED, CLI_COMPLETE_NONE},
    CLI_ARG_END,
};

static const struct cli_option fetch_options[] = {
    [OPT_INTO] = {.name = "into",
                  .value_name = "DIR",
                  .kind = CLI_VALUE,
                  .complete = CLI_COMPLETE_DIRS,
                  .help = "the folder to download into (made when missing)",
                  .required = true},
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_PLATFORM] = CLI_OPT_VALUE("platform", "P", CLI_COMPLETE_NONE,
                                   "another platform's archive (windows-x86_64, linux-sbsa)"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_fetch = {
    .name = "fetch",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_fetch,
    .summary = "download an archive and its manifest without installing",
    .args = fetch_args,
    .options = fetch_options,
    .description =
        "For offline machines: DIR then works as an [install] sources folder (a SHA256SUMS "
        "line is added) and as a [fetch] base (file:///DIR or the folder's path).\n"
        " cdm fetch 9.27 --cuda 13 --into /media/usb\n"
        " cdm install /media/usb/cudnn-linux-x86_64-9.27.0.48_cuda13-archive.tar.xz\n",
};
