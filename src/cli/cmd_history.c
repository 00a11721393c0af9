/* cdm history: a project's link generations. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

static int run_history(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    const char *project = args->pos[0];
    /* Without a folder: the nearest project, as for which. */
    struct cdm_which_info near;
    if (!project) {
        if (cdm_which(ctx, NULL, &near) != CDM_OK)
            return cli_fail(cli);
        project = near.project.path;
    }
    char path[4096];
    struct cdm_generation *g = NULL;
    size_t n = 0;
    if (cdm_history(ctx, project, path, &g, &n) != CDM_OK)
        return cli_fail(cli);
    struct json j;
    json_init(&j);
    if (cli->json)
        json_array_begin(&j);
    else
        cli_printf("   %-4s %-9s %-22s %-20s %s\n", "GEN", "ACTION", "ID", "TIME", "LINK");
    for (size_t i = 0; i < n; i++) {
        char when[32], also[64];
        cli_format_time(g[i].time, when, sizeof(when));
        cdm_pair_view_also(g[i].view, also, sizeof(also));
        if (cli->json) {
            json_object_begin(&j);
            json_kv_int(&j, "generation", g[i].number);
            json_key(&j, "id");
            json_string(&j, g[i].install_id[0] ? g[i].install_id : NULL);
            json_kv_string(&j, "action", g[i].action);
            json_kv_string(&j, "time", when);
            json_kv_bool(&j, "current", g[i].current);
            json_kv_string(&j, "link_name", g[i].link_name);
            json_key(&j, "toolkit");
            json_string(&j, g[i].toolkit[0] ? g[i].toolkit : NULL);
            json_key(&j, "also");
            json_string(&j, *also ? also : NULL);
            json_object_end(&j);
        } else {
            cli_printf("%s  %-4lld %-9s %-22s %-20s %s%s%s%s%s\n", g[i].current ? "*" : " ",
                       g[i].number, g[i].action, g[i].install_id[0] ? g[i].install_id : "-", when,
                       g[i].link_name, g[i].toolkit[0] ? "  with CUDA " : "", g[i].toolkit,
                       *also ? "  beside " : "", also);
        }
    }
    if (cli->json) {
        json_array_end(&j);
        json_print(&j, stdout);
    }
    if (cdm_project_gone(path))
        cli_info(cli, "cdm: project folder '%s' is gone\n", path);
    free(g);
    return EXIT_OK;
}

static const struct cli_arg history_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

const struct cli_command cli_cmd_history = {
    .name = "history",
    .needs = CLI_NEEDS_STORE_READ,
    .run = run_history,
    .summary = "list a project's link generations",
    .args = history_args,
    .description = "The current generation is marked with '*'.\n",
};
