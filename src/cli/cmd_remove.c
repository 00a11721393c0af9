/* cdm remove: an install out of the store. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

enum { OPT_CUDA, OPT_FORCE, OPT_ALL };

static int check_remove(struct cli *cli, const struct cli_args *args)
{
    if (!args->pos[0] == !args->given[OPT_ALL])
        return cli_usage_error(cli, "give the VERSION to remove, or --all");
    return EXIT_OK;
}

static void json_removed(struct json *j, const struct cdm_install_info *removed)
{
    json_object_begin(j);
    json_kv_string(j, "id", removed->id);
    json_kv_string(j, "path", removed->path);
    json_kv_bool(j, "changed", true);
    json_object_end(j);
}

static int run_remove(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    bool all = args->given[OPT_ALL];
    struct cdm_install_info *list = NULL;
    size_t n = 1;
    if (all && cdm_list(ctx, &list, &n) != CDM_OK)
        return cli_fail(cli);
    /* --all refuses before it removes anything while a project uses one (unless --force) */
    struct cdm_usage *used = NULL;
    size_t nused = 0;
    if (all && !args->given[OPT_FORCE] && cdm_usage_list(ctx, &used, &nused) == CDM_OK && nused)
        cli_eprintf("cdm: cannot remove every install: '%s' uses %s%s; unlink it first, or pass "
                    "--force to unlink every project that uses one\n",
                    used[0].project, used[0].install_id, nused > 1 ? " (and others)" : "");
    cdm_usage_free(used, nused);
    if (nused && all && !args->given[OPT_FORCE]) {
        free(list);
        return EXIT_FAIL;
    }
    struct json j;
    json_init(&j);
    if (all)
        json_array_begin(&j);
    int code = EXIT_OK;
    /* --all: each install in turn, as 'cdm remove ID' would; the first refusal stops */
    for (size_t i = 0; i < n && code == EXIT_OK; i++) {
        if (all && list[i].upstream)
            continue; /* an upstream's: never this user's to remove */
        struct cdm_remove_request req = {all ? list[i].id : args->pos[0],
                                         (int)args->number[OPT_CUDA], args->given[OPT_FORCE]};
        struct cdm_install_info removed;
        if (cdm_remove(ctx, &req, &removed) != CDM_OK)
            code = cli_fail(cli);
        else if (cli->json)
            json_removed(&j, &removed);
        else
            cli_info(cli, "removed %s ('%s')\n", removed.id, removed.path);
    }
    if (all)
        json_array_end(&j);
    if (cli->json && code == EXIT_OK)
        json_print(&j, stdout);
    else
        json_free(&j);
    free(list);
    return code;
}

static const struct cli_arg remove_args[] = {
    {"VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option remove_options[] = {
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_FORCE] = CLI_OPT_FLAG("force", "unlink the projects that use it first"),
    [OPT_ALL] = CLI_OPT_FLAG("all", "every install of the store, one after the other"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_remove = {
    .name = "remove",
    .needs = CLI_NEEDS_STORE_WRITE,
    .check = check_remove,
    .run = run_remove,
    .summary = "remove an installed version",
    .args = remove_args,
    .options = remove_options,
};
