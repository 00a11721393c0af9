/* cdm default: the version used outside any project, and new sessions' environment. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

enum { OPT_CUDA, OPT_UNSET, OPT_PERSIST, OPT_UNPERSIST, OPT_DRY_RUN };

static void print_json(const struct cdm_default_result *r, bool dry_run)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_kv_string(&j, "default", *r->id ? r->id : NULL);
    json_kv_string(&j, "previous", *r->previous_id ? r->previous_id : NULL);
    json_kv_string(&j, "path", *r->path ? r->path : NULL);
    json_kv_string(&j, "store", *r->root ? r->root : NULL);
    json_kv_string(&j, "state_file", r->state);
    json_kv_bool(&j, "persisted", r->persisted);
    json_kv_string(&j, "persisted_in", *r->persisted_in ? r->persisted_in : NULL);
    json_kv_bool(&j, "persist_changed", r->persist_changed);
    json_kv_bool(&j, "changed", r->changed);
    json_kv_bool(&j, "dry_run", dry_run);
    json_object_end(&j);
    json_print(&j, stdout);
}

static void print_text(struct cli *cli, const struct cdm_default_request *req,
                       const struct cdm_default_result *r)
{
    const char *would = req->dry_run ? "would be " : "";
    if (cli->quiet)
        return;
    if (strcmp(r->id, r->previous_id) && !*r->id)
        cli_printf("default %sunset (was %s)\n", would, r->previous_id);
    else if (strcmp(r->id, r->previous_id))
        cli_printf("default %s%s (%s)%s%s\n", would, r->id, r->path,
                   *r->previous_id ? ", was " : "", r->previous_id);
    else if (*r->id)
        cli_printf("default %s (%s)\n", r->id, r->path);
    else
        cli_printf("no default version; outside projects 'cdm activate' sets nothing\n");
    const char *w = req->dry_run ? "would " : "";
    if (r->persisted)
        cli_printf("new sessions %sget it from %s\n", r->persist_changed ? w : "", r->persisted_in);
    else if (r->persist_changed)
        cli_printf("new sessions %sno longer get it\n", w);
    else if (req->unpersist)
        cli_printf("new sessions did not get it: nothing to take out\n");
}

static struct cdm_default_request request_of(const struct cli_args *args)
{
    return (struct cdm_default_request){
        .spec = args->pos[0],
        .cuda = (int)args->number[OPT_CUDA],
        .unset = args->given[OPT_UNSET],
        .persist = args->given[OPT_PERSIST],
        .unpersist = args->given[OPT_UNPERSIST],
        .dry_run = args->given[OPT_DRY_RUN],
    };
}

static int check_default(struct cli *cli, const struct cli_args *args)
{
    struct cdm_default_request req = request_of(args);
    if (req.unset && (req.spec || req.persist))
        return cli_usage_error(cli, "--unset takes no VERSION and no --persist");
    if (req.persist && req.unpersist)
        return cli_usage_error(cli, "--persist and --unpersist go one at a time");
    if (req.unpersist && req.spec)
        return cli_usage_error(cli, "--unpersist takes no VERSION; run 'cdm default VERSION' "
                                    "on its own");
    return EXIT_OK;
}

static int run_default(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_default_request req = request_of(args);
    struct cdm_default_result r;
    if (cdm_default(ctx, &req, &r) != CDM_OK)
        return cli_fail(cli);
    if (cli->json)
        print_json(&r, req.dry_run);
    else
        print_text(cli, &req, &r);
    return EXIT_OK;
}

static const struct cli_arg default_args[] = {
    {"VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option default_options[] = {
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_UNSET] = CLI_OPT_FLAG("unset", "forget the default (and take it out of new sessions)"),
    [OPT_PERSIST] = CLI_OPT_FLAG("persist", "give it to new sessions too (Windows: "
                                            "HKCU\\Environment; Linux: environment.d and "
                                            "~/.profile)"),
    [OPT_UNPERSIST] = CLI_OPT_FLAG("unpersist", "take out exactly what --persist put in"),
    [OPT_DRY_RUN] = CLI_OPT_FLAG("dry-run", "say what would change, change nothing"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_default = {
    .name = "default",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_default,
    .run = run_default,
    .summary = "show or set the version used outside any project",
    .args = default_args,
    .options = default_options,
    .description =
        "Without VERSION, shows the default. Outside any project, 'cdm activate' and the "
        "prompt hooks activate it. The choice is the user's own, kept in the user's state "
        "folder, not in the store. With --persist, new sessions get CUDA_PATH, CUDNN_PATH "
        "and the loader path for it without activation; a later 'cdm default VERSION' "
        "updates what was persisted.\n",
};
