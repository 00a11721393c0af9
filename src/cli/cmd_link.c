/* cdm link: a project's link to an install, and its pin file. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

enum { OPT_NAME, OPT_CUDA, OPT_PIN_EXACT, OPT_TOOLKIT, OPT_FORCE, OPT_DRY_RUN, OPT_ALSO, OPT_ONLY };
enum { ARG_PROJECT, ARG_VERSION };

/* A single word is the project when it names a folder, else the version for the nearest
 * project: `cdm link 9.1` inside a project, `cdm link ~/src/p` from anywhere. */
static void split_args(const struct cli_args *args, const char **project, const char **version)
{
    *project = args->pos[ARG_PROJECT];
    *version = args->pos[ARG_VERSION];
    if (*project && !*version && cdm_project_gone(*project)) {
        *version = *project;
        *project = NULL;
    }
}

static int run_link(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_link_request req = {.cuda = (int)args->number[OPT_CUDA],
                                   .name = args->value[OPT_NAME],
                                   .pin_exact = args->given[OPT_PIN_EXACT],
                                   .toolkit = args->value[OPT_TOOLKIT],
                                   .force = args->given[OPT_FORCE],
                                   .dry_run = args->given[OPT_DRY_RUN],
                                   .also = args->given[OPT_ALSO],
                                   .only = args->given[OPT_ONLY]};
    if (req.also && req.only)
        return cli_usage_error(cli, "--also adds a second cuDNN major and --only drops it: give "
                                    "one");
    split_args(args, &req.project, &req.spec);
    /* auto: the newest install every rule accepts here (cdm resolve says why) */
    struct cdm_choice choice = {0};
    bool automatic = req.spec && !strcmp(req.spec, "auto");
    if (automatic) {
        struct cdm_choose_request cr = {req.project, false, false, req.cuda, true};
        if (cdm_choose_auto(ctx, &cr, &choice) != CDM_OK)
            return cli_fail(cli);
        cli_print_choice_line(cli, &choice);
        req.spec = choice.chosen->id;
    }
    /* linked from its pin: a cudnn.lock beside it says exactly which bytes (installed now
     * when missing) */
    struct cdm_lock_result locked;
    if (!req.spec && !req.dry_run) {
        if (cdm_lock_ensure(ctx, req.project, &locked) != CDM_OK)
            return cli_fail(cli);
        if (*locked.install_id)
            req.spec = locked.install_id;
        if (locked.changed)
            cli_info(cli, "installed %s, the archive '%s' names\n", locked.install_id, locked.path);
    }
    struct cdm_link_result result;
    int rc = cdm_link(ctx, &req, &result);
    cdm_choice_free(&choice);
    if (rc != CDM_OK)
        return cli_fail(cli);
    cli_print_change(cli, &result, "linked");
    if (result.unignored && !cli->json && !result.dry_run)
        cli_info(cli,
                 "hint: '%s' is in a git work tree and git does not ignore '%s'; add the line "
                 "'/%s' to its .gitignore (commit %s, not the link)\n",
                 result.now.project.path, result.now.project.link_name,
                 result.now.project.link_name, CDM_PIN_FILE);
    return EXIT_OK;
}

static const struct cli_arg link_args[] = {
    [ARG_PROJECT] = {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    [ARG_VERSION] = {"VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option link_options[] = {
    [OPT_NAME] = CLI_OPT_VALUE("name", "NAME", CLI_COMPLETE_NONE,
                               "the link's name (default: the project's, or [link] name)"),
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_PIN_EXACT] = CLI_OPT_FLAG("pin-exact", "write the install's full id to the pin file, "
                                                "even when its text names the install already"),
    [OPT_TOOLKIT] = CLI_OPT_VALUE("toolkit", "X.Y|DIR|none", CLI_COMPLETE_TOOLKITS,
                                  "the CUDA toolkit the project uses (a version 'cdm toolkits' "
                                  "lists, or its folder): the link then leads to a view of both; "
                                  "none drops it (default: the project's)"),
    [OPT_FORCE] = CLI_OPT_FLAG("force", "link a cuDNN and toolkit outside the compatibility "
                                        "tables, a cuDNN that a Python environment "
                                        "attached to the project would refuse, or one this "
                                        "machine's GPU or driver cannot run, with a warning"),
    [OPT_DRY_RUN] = CLI_OPT_FLAG("dry-run", "say what would change, change nothing"),
    [OPT_ALSO] = CLI_OPT_FLAG("also", "keep the project's install and add VERSION beside it, "
                                      "a second cuDNN major (8.9.7 beside 9.19)"),
    [OPT_ONLY] = CLI_OPT_FLAG("only", "VERSION alone: drop a second major the project holds"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_link = {
    .name = "link",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_link,
    .summary = "link a project to an installed version",
    .args = link_args,
    .options = link_options,
    .description =
        "Creates or switches PROJECT/cuda_link and writes PROJECT/.cudnn-version.\n"
        "PROJECT defaults to the nearest folder upwards with a link or pin file; a single "
        "word that is no folder is the VERSION.\n"
        "VERSION auto: the newest install that this machine's GPUs and driver, the project's "
        "toolkit and Python environments accept ('cdm resolve' shows each reason); the pin "
        "is chosen anew, not obeyed.\n"
        "VERSION omitted: the one in the project's .cudnn-version pin file. The pin keeps its "
        "text while it names the linked version (8.8 stays 8.8); otherwise, or with "
        "--pin-exact, it gets the full id.\n"
        "The first link in a git work tree that does not ignore it prints a hint to add it to "
        ".gitignore.\n"
        "With --also VERSION goes beside the project's install as a second cuDNN major: the "
        "link then leads to a view in the store holding both (libcudnn.so.9 and "
        "libcudnn.so.8, cudnn64_9.dll and cudnn64_8.dll; the headers are the first's), "
        "so activation, exec and the redirect give a program both. Later links switch the "
        "install of their version's major and keep the other; --only drops it.\n"
        "With --toolkit the link leads to a view in the store: the toolkit's bin, include and "
        "library folders with the cuDNN files on top, made of links, so that the link works as "
        "CUDA_PATH (activation then also sets CUDA_HOME and puts its bin on PATH). A pair "
        "outside the compatibility tables is refused unless --force. Later links keep the "
        "project's toolkit.\n"
        " cdm link . 9.19 --toolkit 13.0\n",
};
