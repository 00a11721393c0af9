/* cdm exec: a command run with the project's cuDNN, no shell activation needed. */
#include "cli.h"

#include <stdlib.h>

enum { OPT_NO_REDIRECT, OPT_FORCE, OPT_CHECK };

static int check_exec(struct cli *cli, const struct cli_args *args)
{
    if (!args->rest || !args->nrest)
        return cli_usage_error(cli, "give the command to run after '--'");
    return EXIT_OK;
}

static int run_exec(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    /* the words after "--", untouched by cdm's options, ending with NULL as argv does */
    char **command = xcalloc((size_t)args->nrest + 1, sizeof(char *));
    for (int i = 0; i < args->nrest; i++)
        command[i] = args->rest[i];
    struct cdm_exec_request req = {args->pos[0], command, args->given[OPT_NO_REDIRECT],
                                   args->given[OPT_FORCE], args->given[OPT_CHECK]};
    int code = EXIT_FAIL;
    if (cdm_exec(ctx, &req, &code) != CDM_OK) {
        cli_fail(cli);
        /* --check: a run without the GPU that exited 0 exits 3, apart from CMD's own 1 */
        if (code == EXIT_OK)
            code = req.check && cdm_error_code(ctx) == CDM_EMISMATCH ? 3 : EXIT_FAIL;
    }
    free(command);
    return code;
}

static const struct cli_arg exec_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    {"CMD ARGS", CLI_ARG_REST, CLI_COMPLETE_FILES},
    CLI_ARG_END,
};

static const struct cli_option exec_options[] = {
    [OPT_NO_REDIRECT] = CLI_OPT_FLAG("no-redirect", "set the activation's environment only: "
                                                    "loads by RPATH or by path are left as "
                                                    "they are"),
    [OPT_FORCE] = CLI_OPT_FLAG("force", "run with an install this machine's GPU or driver "
                                        "cannot run, with a warning"),
    [OPT_CHECK] = CLI_OPT_FLAG("check", "watch what CMD loads and fail when it ran without "
                                        "the GPU (no cuDNN or no CUDA driver loaded)"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_exec = {
    .name = "exec",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_exec,
    .run = run_exec,
    .summary = "run a command with a project's cuDNN, without activating a shell",
    .args = exec_args,
    .options = exec_options,
    .description =
        "Runs CMD with exactly what 'cdm activate' sets for PROJECT (the nearest folder "
        "upwards with a link, else the default), with no shell in between, and exits with "
        "CMD's status; cdm prints nothing of its own when all goes well.\n"
        "On Linux every cuDNN library that CMD and its children load comes from the "
        "project's install, also where a framework names another copy by RPATH (PyTorch's "
        "pip wheel, conda) or by path (JAX, ONNX Runtime): the loader's audit interface "
        "(LD_AUDIT, with cdm-audit.so) hands it the install's file of the same name. A name "
        "the install has no file for is loaded as it would be. Not reached: set-user-ID and "
        "statically linked programs.\n"
        "On Windows CMD gets the activation's PATH; PyTorch's own torch\\lib\\cudnn*.dll, "
        "loaded by their path, are reached only by 'cdm attach', which cdm then says.\n"
        "An install this machine's GPUs or driver cannot run (see 'cdm resolve') is refused "
        "unless --force.\n"
        "With --check cdm waits for CMD and fails when it loaded no cuDNN or no CUDA driver, "
        "saying what it loaded instead (ONNX Runtime's CPU provider, a CUDA runtime that "
        "found no driver): exit status 3 when CMD itself exited 0.\n"
        " cdm exec -- python3 train.py\n"
        " cdm exec ~/src/project_a -- jupyter lab\n",
};
