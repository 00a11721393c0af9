/* cdm attach / cdm detach: a Python environment's cuDNN wheel folder follows a project. */
#include "cli.h"

#include <stdio.h>

enum { OPT_FORCE };

static void print_json(const struct cdm_attach_result *r, bool attach)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_kv_string(&j, "venv", r->venv);
    json_kv_string(&j, "folder", r->folder);
    json_kv_string(&j, "target", *r->target ? r->target : NULL);
    json_kv_string(&j, "original", *r->original ? r->original : NULL);
    json_kv_bool(&j, "changed", r->changed);
    json_kv_string(&j, "project", *r->project ? r->project : NULL);
    json_kv_string(&j, "install", *r->install_id ? r->install_id : NULL);
    json_kv_string(&j, "wheel", *r->wheel ? r->wheel : NULL);
    if (attach) {
        json_kv_string(&j, "framework", *r->framework ? r->framework : NULL);
        json_kv_string(&j, "requirement", *r->requirement ? r->requirement : NULL);
        json_kv_string(&j, "forced", *r->overridden ? r->overridden : NULL);
        json_kv_int(&j, "files", r->files);
        json_kv_string(&j, "hook", *r->hook ? r->hook : NULL);
        json_kv_int(&j, "more", r->more);
        json_kv_string(&j, "more_folders", *r->more_folders ? r->more_folders : NULL);
        json_kv_string(&j, "hook_blocked", *r->hook_blocked ? r->hook_blocked : NULL);
    } else {
        json_kv_int(&j, "restored", r->restored);
        json_kv_int(&j, "dropped", r->dropped);
        json_kv_int(&j, "more", r->more);
    }
    json_kv_string(&j, "drift", *r->drift ? r->drift : NULL);
    json_object_end(&j);
    json_print(&j, stdout);
}

static void print_attached(struct cli *cli, const struct cdm_attach_result *r)
{
    if (*r->hook_blocked)
        cli_eprintf("cdm: warning: '%s' does not import site, so Python runs no .pth file in "
                    "'%s': add the line 'import site' to it for cdm's DLL folders hook\n",
                    r->hook_blocked, r->venv);
    if (!r->changed) {
        cli_info(cli, "'%s' follows '%s' already (%u cuDNN files in '%s' lead to '%s')\n", r->venv,
                 r->project, r->files, r->folder, r->target);
    } else if (*r->original) {
        cli_info(cli, "attached '%s' to '%s' (%s): %u cuDNN files in '%s' lead to '%s'\n", r->venv,
                 r->project, r->install_id, r->files, r->folder, r->target);
        cli_info(cli,
                 "the wheel's own files%s%s are kept in '%s'; 'cdm detach %s' puts them back\n",
                 *r->wheel ? " of " : "", r->wheel, r->original, r->venv);
    } else {
        cli_info(cli, "attached '%s' to '%s' (%s): it has no cuDNN of its own\n", r->venv,
                 r->project, r->install_id);
    }
    if (r->more)
        cli_info(cli,
                 "and %u more of its folders with cuDNN files of their own, each file a link "
                 "to the project's: %s\n",
                 r->more, r->more_folders);
    if (r->changed && *r->hook)
        cli_info(cli,
                 "each Python start there adds '%s' to the DLL folders (os.add_dll_directory, "
                 "'%s'), for programs that load cuDNN by name\n",
                 r->target, r->hook);
}

static void print_detached(struct cli *cli, const struct cdm_attach_result *r)
{
    if (r->more)
        cli_info(cli, "and %u more of its folders given back\n", r->more);
    if (!r->changed) {
        cli_info(cli, "'%s' is not attached: '%s' holds the wheel's own files\n", r->venv,
                 r->folder);
    } else if (!*r->original) {
        cli_info(cli, "detached '%s': cdm's DLL folders hook is removed from '%s'\n", r->venv,
                 r->folder);
    } else {
        cli_info(cli, "detached '%s': %u of the wheel's files are back in '%s'\n", r->venv,
                 r->restored, r->folder);
        if (r->dropped)
            cli_info(cli,
                     "%u kept files were dropped: the environment has files of its own there "
                     "again\n",
                     r->dropped);
    }
}

static void print_result(struct cli *cli, const struct cdm_attach_result *r, bool attach)
{
    if (cli->json) {
        print_json(r, attach);
        return;
    }
    if (*r->overridden)
        cli_eprintf("cdm: warning: attached although %s (--force)\n", r->overridden);
    if (*r->drift)
        cli_info(cli, "'%s' had changed since it was attached: %s\n", r->venv, r->drift);
    if (attach)
        print_attached(cli, r);
    else
        print_detached(cli, r);
}

static int run_attach(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_attach_request req = {args->pos[0], args->pos[1], args->given[OPT_FORCE]};
    struct cdm_attach_result r;
    if (cdm_attach(ctx, &req, &r) != CDM_OK)
        return cli_fail(cli);
    print_result(cli, &r, true);
    return EXIT_OK;
}

static int run_detach(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_attach_result r;
    if (cdm_detach(ctx, args->pos[0], &r) != CDM_OK)
        return cli_fail(cli);
    print_result(cli, &r, false);
    return EXIT_OK;
}

static const struct cli_arg attach_args[] = {
    {"VENV", CLI_ARG_REQUIRED, CLI_COMPLETE_DIRS},
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option attach_options[] = {
    [OPT_FORCE] = CLI_OPT_FLAG("force", "attach even a cuDNN the environment's framework (torch's "
                                        "Requires-Dist) would refuse (another major or an older "
                                        "minor), or one this machine's GPU or driver cannot run"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_attach = {
    .name = "attach",
    .needs = CLI_NEEDS_STATE,
    .run = run_attach,
    .summary = "make a Python environment's cuDNN wheel follow a project",
    .args = attach_args,
    .options = attach_options,
    .description =
        "Replaces each cuDNN library in VENV's site-packages/nvidia/cudnn/lib (nvidia\\cudnn\\bin "
        "on Windows) with its own link to PROJECT's file of that name, so PyTorch, ONNX Runtime "
        "and the like load the project's version; later link and rollback apply too. The "
        "folder stays the environment's, so pip and uv replace the links and never the store's "
        "files. The wheel's files are kept and 'cdm detach' puts them back. Attaching again "
        "after pip or uv reinstalled the wheel attaches the new files. On Windows the "
        "environment also gets a .pth file of cdm's (cdm-dll-dirs.pth, with the list "
        "cdm-dll-dirs.txt) that adds the project's DLL folder with os.add_dll_directory at "
        "each Python start, for programs that load cuDNN by name (CTranslate2, ONNX Runtime, "
        "ctypes): Python 3.8 and later do not search PATH for them. An environment without a "
        "cuDNN of its own gets the hook alone; a framework's own copy (torch\\lib, "
        "onnxruntime\\capi, ctranslate2, paddle\\libs) is linked file by file. PROJECT "
        "defaults to the nearest one upwards.\n",
};

static const struct cli_arg detach_args[] = {
    {"VENV", CLI_ARG_REQUIRED, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

const struct cli_command cli_cmd_detach = {
    .name = "detach",
    .needs = CLI_NEEDS_STATE,
    .run = run_detach,
    .summary = "give a Python environment its own cuDNN wheel back",
    .args = detach_args,
    .description = "Removes the links 'cdm attach' made and puts the wheel's files back as they "
                   "were; files that pip or uv reinstalled since stay, and cdm's kept copies of "
                   "them go.\n",
};
