/* cdm store delete: a whole store the user made, removed, its read-only folders included. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

enum { OPT_FORCE };

static int check_store(struct cli *cli, const struct cli_args *args)
{
    if (strcmp(args->pos[0], "delete"))
        return cli_usage_error(cli, "'%s' is not delete", args->pos[0]);
    return EXIT_OK;
}

static int run_store(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_store_delete_result r;
    if (cdm_store_delete(ctx, args->given[OPT_FORCE], &r) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "root", r.root);
        json_kv_int(&j, "installs", (long long)r.installs);
        json_kv_int(&j, "unlinked", (long long)r.unlinked);
        json_kv_bool(&j, "changed", true);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli, "deleted the store '%s' (%zu install%s%s)\n", r.root, r.installs,
                 r.installs == 1 ? "" : "s",
                 r.unlinked ? "; the projects linking into it were unlinked first" : "");
    }
    return EXIT_OK;
}

static const struct cli_arg store_args[] = {
    {"delete", CLI_ARG_REQUIRED, CLI_COMPLETE_CHOICES},
    CLI_ARG_END,
};

static const struct cli_option store_options[] = {
    [OPT_FORCE] = CLI_OPT_FLAG("force", "unlink the projects that link into it first"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_store = {
    .name = "store",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_store,
    .run = run_store,
    .summary = "delete a whole store (its installs are read-only to rm -rf)",
    .args = store_args,
    .options = store_options,
    .description =
        "delete: removes the store at the root (--root, CDM_ROOT, [store] root) with its "
        "index, giving its read-only folders write bits only to delete them. Refused for a "
        "folder without cdm's index, one holding anything cdm did not make, one keeping "
        "the files of a deploy or an attach (undo them first), and, unless --force, one "
        "that projects link into. Moved aside in one rename first, so a kill leaves no half "
        "store in its place.\n"
        " cdm store delete --root ~/scratch-store\n",
};
