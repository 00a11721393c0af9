/* cdm bundle: one file that installs a project's cuDNN on a machine with no network. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_OUTPUT, OPT_PLATFORM, OPT_CDM };

static int run_bundle(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    if (!args->value[OPT_OUTPUT])
        return cli_usage_error(cli, "give the bundle's file with -o FILE");
    char *platform_list = args->value[OPT_PLATFORM] ? xstrdup(args->value[OPT_PLATFORM]) : NULL;
    char *binary_list = args->value[OPT_CDM] ? xstrdup(args->value[OPT_CDM]) : NULL;
    const char *platforms[8], *binaries[8];
    struct cdm_bundle_request req = {
        .project = args->pos[0],
        .output = args->value[OPT_OUTPUT],
        .platforms = platforms,
        .nplatforms = cli_split_commas(platform_list, platforms, CDM_ARRAY_LEN(platforms)),
        .binaries = binaries,
        .nbinaries = cli_split_commas(binary_list, binaries, CDM_ARRAY_LEN(binaries)),
    };
    cli_catch_interrupts(ctx);
    struct cdm_bundle_result r;
    int rc = cdm_bundle(ctx, &req, &r);
    free(platform_list);
    free(binary_list);
    if (rc != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "path", r.path);
        json_kv_string(&j, "install", r.install_id);
        json_kv_int(&j, "platforms", (long long)r.platforms);
        json_kv_int(&j, "size", (long long)r.size);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli,
                 "wrote '%s' (%llu bytes): %s for %zu platform%s, with cdm; on the other "
                 "machine: cdm install --from-bundle FILE\n",
                 r.path, (unsigned long long)r.size, r.install_id, r.platforms,
                 r.platforms == 1 ? "" : "s");
    }
    return EXIT_OK;
}

static const struct cli_arg bundle_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option bundle_options[] = {
    [OPT_OUTPUT] = {"output", 'o', "FILE", CLI_VALUE, CLI_COMPLETE_FILES,
                    "the bundle to write (a tar)", 0, 0, NULL, false, true},
    [OPT_PLATFORM] = CLI_OPT_VALUE("platform", "P,P", CLI_COMPLETE_NONE,
                                   "the platforms besides this machine's (windows-x86_64, "
                                   "linux-sbsa): each must be in the project's cudnn.lock"),
    [OPT_CDM] = CLI_OPT_VALUE("cdm", "P=PATH,...", CLI_COMPLETE_NONE,
                              "cdm's binary for another platform (windows-x86_64=cdm.exe); "
                              "this machine's is the running cdm"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_bundle = {
    .name = "bundle",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_bundle,
    .summary = "one file that installs a project's cuDNN offline",
    .args = bundle_args,
    .options = bundle_options,
    .description =
        "Writes a tar holding the project's cudnn.lock and pin, the archive the lock names for "
        "this machine and for each --platform (from [install] sources, else [fetch] base, each "
        "held to the lock's SHA-256), cdm itself for each platform, and a SHA256SUMS of them "
        "all. On the offline machine, 'cdm install --from-bundle FILE' (cdm from the bundle's "
        "bin/ folder) installs that machine's archive, held to the lock, with no network.\n"
        " cdm lock --platform windows-x86_64\n"
        " cdm bundle -o proj.tar --platform windows-x86_64 \\\n"
        "     --cdm windows-x86_64=cdm.exe\n",
};
