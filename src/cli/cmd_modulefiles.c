/* cdm modulefiles: Lmod or Environment Modules files for the store's installs. */
#include "cli.h"

enum { OPT_INTO, OPT_TCL };

static int check_modulefiles(struct cli *cli, const struct cli_args *args)
{
    if (!args->value[OPT_INTO])
        return cli_usage_error(cli, "give the folder to write into: --into DIR");
    return EXIT_OK;
}

static int run_modulefiles(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_modulefiles_result r;
    if (cdm_modulefiles(ctx, args->value[OPT_INTO], args->given[OPT_TCL], &r) != CDM_OK)
        return cli_fail(cli);
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_string(&j, "dir", r.dir);
        json_kv_int(&j, "files", r.files);
        json_kv_int(&j, "written", r.written);
        json_kv_string(&j, "default", *r.default_id ? r.default_id : NULL);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli, "%u modulefiles in '%s' (%u written), the default %s\n", r.files, r.dir,
                 r.written, *r.default_id ? r.default_id : "none");
    }
    return EXIT_OK;
}

static const struct cli_option modulefiles_options[] = {
    [OPT_INTO] = CLI_OPT_VALUE("into", "DIR", CLI_COMPLETE_DIRS,
                               "the module folder ('module use DIR'); files go to DIR/cudnn"),
    [OPT_TCL] = CLI_OPT_FLAG("tcl", "Tcl modulefiles (Environment Modules) instead of Lmod's Lua"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_modulefiles = {
    .name = "modulefiles",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_modulefiles,
    .run = run_modulefiles,
    .summary = "write Lmod or Tcl modulefiles for the installs",
    .options = modulefiles_options,
    .description =
        "Writes one modulefile per install of this machine's platform into DIR/cudnn (Lua for "
        "Lmod, Tcl with --tcl) and DIR/cudnn/.version naming the newest as the default. "
        "'module load cudnn/ID' sets CUDNN_PATH, CUDNN_ROOT and CDM_ACTIVE, puts the "
        "install's folders first on LD_LIBRARY_PATH, CPATH and LIBRARY_PATH, and conflicts "
        "with any other cudnn module; 'module unload' takes it all back. CUDA_PATH is left to "
        "the CUDA toolkit's own module. Run it again after an install or remove; files cdm "
        "did not write are never replaced.\n"
        " cdm modulefiles --into /opt/modulefiles\n"
        " module use /opt/modulefiles && module load cudnn/9.19.0.56-cuda13\n",
};
