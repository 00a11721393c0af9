/* cdm's program: the command table, the global options read, the command run, exit codes.
 * The top of the front end: the files below reach the table through struct cli. */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The commands in the order a user meets them: the overview lists them so. One a line,
 * which clang-format would pack into columns. */
// clang-format off
static const struct cli_command *const cli_commands[] = {
    &cli_cmd_install,
    &cli_cmd_available,
    &cli_cmd_fetch,
    &cli_cmd_list,
    &cli_cmd_scan,
    &cli_cmd_remove,
    &cli_cmd_link,
    &cli_cmd_unlink,
    &cli_cmd_which,
    &cli_cmd_resolve,
    &cli_cmd_history,
    &cli_cmd_rollback,
    &cli_cmd_lock,
    &cli_cmd_bundle,
    &cli_cmd_push,
    &cli_cmd_toolkits,
    &cli_cmd_activate,
    &cli_cmd_deactivate,
    &cli_cmd_hook,
    &cli_cmd_default,
    &cli_cmd_deploy,
    &cli_cmd_attach,
    &cli_cmd_detach,
    &cli_cmd_exec,
    &cli_cmd_kernel,
    &cli_cmd_modulefiles,
    &cli_cmd_doctor,
    &cli_cmd_verify,
    &cli_cmd_sbom,
    &cli_cmd_gc,
    &cli_cmd_store,
    &cli_cmd_complete,
    &cli_cmd_help,
    NULL,
};
// clang-format on

/* Output that a shell evaluates must be whole: a failed write is an error. */
static int finish_output(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_eprintf("cdm: cannot write to standard output\n");
        return EXIT_FAIL;
    }
    return rc;
}

/* The program once cli->command_line is known: options, the command, its run. */
static int run_main(struct cli *cli, int argc, char **argv)
{
    struct cli_args globals_rows, args_rows;
    struct cli_args *globals = &globals_rows, *args = &args_rows;
    int rc = cli_take_options(cli, cli_global_options, &argc, argv, globals);
    if (rc)
        return rc;
    cli->root = globals->value[CLI_GLOBAL_ROOT];
    cli->config = globals->value[CLI_GLOBAL_CONFIG];
    cli->json = globals->given[CLI_GLOBAL_JSON];
    cli->quiet = globals->given[CLI_GLOBAL_QUIET];
    cli->verbose = globals->given[CLI_GLOBAL_VERBOSE];
    if (globals->given[CLI_GLOBAL_VERSION]) {
        printf("cdm %s\n", CDM_VERSION_STRING);
        return finish_output(EXIT_OK);
    }
    bool help = globals->given[CLI_GLOBAL_HELP];
    if (argc == 0) {
        cli_print_overview(help ? stdout : stderr, cli->commands);
        return finish_output(help ? EXIT_OK : EXIT_USAGE);
    }
    const struct cli_command *c = cli_find_command(cli->commands, argv[0]);
    if (!c) {
        const char *names[64];
        size_t n = 0;
        for (const struct cli_command *const *k = cli->commands; *k && n < 64; k++)
            names[n++] = (*k)->name;
        const char *near = str_closest(argv[0], names, n);
        if (near)
            cli_eprintf("cdm: '%s' is not a command; did you mean '%s'? (see 'cdm help')\n",
                        argv[0], near);
        else
            cli_eprintf("cdm: '%s' is not a command; see 'cdm help'\n", argv[0]);
        return EXIT_USAGE;
    }
    cli->command = c;
    if (help) {
        cli_print_command_help(stdout, c);
        return finish_output(EXIT_OK);
    }
    cdm_ctx *ctx = NULL;
    rc = cli_parse(cli, c, argc - 1, argv + 1, args);
    if (rc == EXIT_OK && c->check)
        rc = c->check(cli, args);
    if (rc == EXIT_OK)
        rc = cli_open(cli, c, &ctx);
    if (rc == EXIT_OK)
        rc = c->run(cli, ctx, args);
    cdm_ctx_free(cli->ctx);
    return finish_output(rc);
}

int cli_main(int argc, char **argv)
{
    struct cli cli = {.commands = cli_commands};
    struct strbuf line = STRBUF_INIT;
    sb_add(&line, "cdm");
    for (int i = 1; i < argc && line.len < 200; i++)
        sb_addf(&line, " %s", argv[i]);
    cli.command_line = sb_detach(&line);
    int rc = run_main(&cli, argc - 1, argv + 1);
    free(cli.command_line);
    return rc;
}
