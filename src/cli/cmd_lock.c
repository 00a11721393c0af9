/* cdm lock: the exact archive of a project's cuDNN, per platform, in cudnn.lock. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_PLATFORM, OPT_CHECK };

static int run_lock(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    /* --platform a,b: the platforms besides this machine's */
    char *list = args->value[OPT_PLATFORM] ? xstrdup(args->value[OPT_PLATFORM]) : NULL;
    const char *platforms[16];
    size_t n = cli_split_commas(list, platforms, CDM_ARRAY_LEN(platforms));
    struct cdm_lock_request req = {args->pos[0], platforms, n, args->given[OPT_CHECK]};
    struct cdm_lock_result r;
    int rc = cdm_lock(ctx, &req, &r);
    free(list);
    if (rc != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "path", r.path);
        json_kv_string(&j, "install", r.install_id);
        json_kv_bool(&j, "matches", req.check);
        json_kv_int(&j, "platforms", (long long)r.platforms);
        json_object_end(&j);
        json_print(&j, stdout);
    } else if (req.check) {
        cli_info(cli, "'%s' names what '%s' uses (%s)\n", r.path, r.project, r.install_id);
    } else {
        cli_info(cli, "wrote '%s': %s for %zu platform%s\n", r.path, r.install_id, r.platforms,
                 r.platforms == 1 ? "" : "s");
    }
    return EXIT_OK;
}

static const struct cli_arg lock_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option lock_options[] = {
    [OPT_PLATFORM] = CLI_OPT_VALUE("platform", "P,P", CLI_COMPLETE_NONE,
                                   "lock these platforms' archives too (windows-x86_64, "
                                   "linux-sbsa), from the manifest at [fetch] base"),
    [OPT_CHECK] = CLI_OPT_FLAG("check", "compare the project's install with the lock: exit 1 "
                                        "when they differ"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_lock = {
    .name = "lock",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_lock,
    .summary = "write the exact archive of a project's cuDNN to cudnn.lock",
    .args = lock_args,
    .options = lock_options,
    .description =
        "Writes PROJECT/cudnn.lock (commit it beside .cudnn-version): the version and CUDA "
        "major of the project's cuDNN and, for this machine's platform and each --platform, "
        "the archive's file name, size and SHA-256 (this machine's from the install's record, "
        "the others from the manifest at [fetch] base). 'cdm link' from the pin then installs "
        "exactly those bytes where they are missing (from [install] sources or [fetch] base) "
        "and refuses an install made from another archive. --check exits 1 when the "
        "project's install is not what the lock names.\n",
};
