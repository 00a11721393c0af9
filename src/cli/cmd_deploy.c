/* cdm deploy: an install's files copied over a CUDA toolkit's, recorded, and undone. */
#include "cli.h"

#include <stdio.h>

enum { OPT_INTO, OPT_UNDO, OPT_CUDA, OPT_FORCE };

static void print_json(const struct cdm_deploy_result *r, bool undo)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_kv_string(&j, "install", *r->install_id ? r->install_id : NULL);
    json_kv_string(&j, "toolkit", r->toolkit);
    json_kv_string(&j, "toolkit_version", *r->toolkit_version ? r->toolkit_version : NULL);
    json_kv_bool(&j, "undo", undo);
    json_kv_int(&j, "files", (long long)r->files);
    json_kv_int(&j, "replaced", (long long)r->replaced);
    json_kv_bool(&j, "changed", r->changed);
    json_object_end(&j);
    json_print(&j, stdout);
}

static int check_deploy(struct cli *cli, const struct cli_args *args)
{
    const char *undo = args->value[OPT_UNDO], *into = args->value[OPT_INTO];
    if (undo && (into || args->pos[0]))
        return cli_usage_error(cli, "--undo takes only the toolkit's folder");
    if (!undo && (!into || !args->pos[0]))
        return cli_usage_error(cli, "give VERSION --into TOOLKIT_DIR, or --undo TOOLKIT_DIR");
    return EXIT_OK;
}

static int run_deploy(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    const char *undo = args->value[OPT_UNDO], *into = args->value[OPT_INTO];
    struct cdm_deploy_result r;
    struct cdm_deploy_request req = {
        .spec = args->pos[0],
        .cuda = (int)args->number[OPT_CUDA],
        .into = into,
        .force = args->given[OPT_FORCE],
    };
    if ((undo ? cdm_deploy_undo(ctx, undo, req.force, &r) : cdm_deploy(ctx, &req, &r)) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        print_json(&r, undo != NULL);
        return EXIT_OK;
    }
    if (cli->quiet)
        return EXIT_OK;
    if (undo && !r.changed)
        cli_printf("nothing deployed by cdm in '%s'\n", r.toolkit);
    else if (undo)
        cli_printf("'%s' is as it was before %s: %zu files put back, %zu of them the toolkit's "
                   "own\n",
                   r.toolkit, r.install_id, r.files, r.replaced);
    else if (!r.changed)
        cli_printf("%s is deployed in '%s' already\n", r.install_id, r.toolkit);
    else
        cli_printf("deployed %s into the CUDA %s toolkit '%s': %zu files, %zu replaced (kept "
                   "in the store); 'cdm deploy --undo %s' puts them back\n",
                   r.install_id, r.toolkit_version, r.toolkit, r.files, r.replaced, r.toolkit);
    return EXIT_OK;
}

static const struct cli_arg deploy_args[] = {
    {"VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option deploy_options[] = {
    [OPT_INTO] = CLI_OPT_VALUE("into", "TOOLKIT_DIR", CLI_COMPLETE_DIRS,
                               "the CUDA toolkit's folder to copy the install into"),
    [OPT_UNDO] = CLI_OPT_VALUE("undo", "TOOLKIT_DIR", CLI_COMPLETE_DIRS,
                               "put the toolkit back as it was before the deploy"),
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_FORCE] = CLI_OPT_FLAG("force", "deploy a pair outside the compatibility tables; with "
                                        "--undo, put back files changed since the deploy too"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_deploy = {
    .name = "deploy",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_deploy,
    .run = run_deploy,
    .summary = "copy an install into a CUDA toolkit, with an undo",
    .args = deploy_args,
    .options = deploy_options,
    .description =
        "The install's include, lib and bin files go to the toolkit's own folders. Every\n"
        "file replaced is kept in the store and recorded first, so 'cdm deploy --undo DIR'\n"
        "puts the toolkit back byte for byte; a deploy cut short is undone by the next cdm.\n"
        "A toolkit under Program Files needs an elevated shell.\n",
};
