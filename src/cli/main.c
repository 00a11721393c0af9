/* cdm's entry point: global options, the command table, exit codes. */
#include "cli.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The commands in the order a user meets them: the overview lists them so. */
const struct cli_command *const cli_commands[] = {
    &cli_cmd_install,
    &cli_cmd_available,
    &cli_cmd_fetch,
    &cli_cmd_list,
    &cli_cmd_remove,
    &cli_cmd_link,
    &cli_cmd_unlink,
    &cli_cmd_which,
    &cli_cmd_history,
    &cli_cmd_rollback,
    &cli_cmd_lock,
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
    &cli_cmd_gc,
    &cli_cmd_complete,
    &cli_cmd_help,
    NULL,
};

const struct cli_option cli_global_options[] = {
    [CLI_GLOBAL_ROOT] =
        CLI_OPT_VALUE("root", "DIR", CLI_COMPLETE_DIRS,
                      "the store (default: $CDM_ROOT, [store] root, or "
                      "${XDG_DATA_HOME:-~/.local/share}/cdm; C:\\cudnn_archive on Windows)"),
    [CLI_GLOBAL_CONFIG] =
        CLI_OPT_VALUE("config", "FILE", CLI_COMPLETE_FILES,
                      "the configuration (default: $CDM_CONFIG or the per-user file)"),
    [CLI_GLOBAL_JSON] = CLI_OPT_FLAG("json", "print one JSON document on stdout"),
    [CLI_GLOBAL_QUIET] = {.name = "quiet", .short_name = 'q', .help = "no messages or progress"},
    [CLI_GLOBAL_VERBOSE] = {.name = "verbose", .short_name = 'v', .help = "more messages"},
    [CLI_GLOBAL_VERSION] = {.name = "version", .help = "print the version", .not_in_usage = true},
    [CLI_GLOBAL_HELP] = {.name = "help",
                         .short_name = 'h',
                         .help = "show this overview, or a command's help after its name",
                         .not_in_usage = true},
    CLI_OPT_END,
};

const struct cli_command *cli_find_command(const char *name)
{
    for (const struct cli_command *const *c = cli_commands; *c; c++)
        if (!strcmp((*c)->name, name))
            return *c;
    return NULL;
}

/* Progress on a terminal only: bytes, percent, rate and time left; at most ten updates a
 * second. A phase (a download, then the extraction) starts when done goes back. */
struct progress {
    struct timespec start, last;
    uint64_t first, last_done; /* bytes at the phase's start (a resumed download's) */
    bool shown, line_open;
    bool finished; /* this phase's final line is out: later calls at 100% print nothing */
};
static struct progress progress_state;

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void format_eta(char *out, size_t size, double seconds)
{
    if (seconds < 0 || seconds > 359999)
        snprintf(out, size, "--:--");
    else if (seconds >= 3600)
        snprintf(out, size, "%dh%02dm", (int)seconds / 3600, (int)seconds % 3600 / 60);
    else
        snprintf(out, size, "%dm%02ds", (int)seconds / 60, (int)seconds % 60);
}

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    struct progress *p = &progress_state;
    struct timespec now;
    cli_now(&now);
    if (!p->shown || done < p->last_done) {
        p->start = p->last = now;
        p->first = done;
        p->shown = true;
        p->finished = false;
    }
    if (p->finished) /* the reader drains the archive's tail after its last block */
        return;
    p->last_done = done;
    if ((done < total || !total) && seconds_between(&p->last, &now) < 0.1)
        return;
    p->last = now;
    char d[32], t[32], r[32], eta[16];
    double elapsed = seconds_between(&p->start, &now);
    double rate = elapsed > 0 ? (double)(done - p->first) / elapsed : 0;
    format_size(d, sizeof(d), done);
    format_size(t, sizeof(t), total);
    format_size(r, sizeof(r), (unsigned long long)rate);
    format_eta(eta, sizeof(eta), rate > 0 ? (double)(total - done) / rate : -1);
    if (!total) { /* a size nobody published: no end to show */
        fprintf(stderr, "\r  %s  %s/s   ", d, r);
        p->line_open = true;
        return;
    }
    fprintf(stderr, "\r  %s / %s  %3d%%  %s/s  %s left   ", d, t,
            total ? (int)(done * 100 / total) : 0, r, done >= total ? "0m00s" : eta);
    p->line_open = done < total;
    if (done >= total) {
        fputc('\n', stderr);
        p->finished = true;
    }
}

/* A message on its own line, after an unfinished progress line. */
static void end_progress_line(void)
{
    if (progress_state.line_open)
        fputc('\n', stderr);
    progress_state.line_open = false;
}

static void on_warning(void *arg, const char *message)
{
    struct cli *cli = arg;
    if (!cli->quiet) {
        end_progress_line();
        cli_eprintf("cdm: warning: %s\n", message);
    }
}

/* What a download is doing, on its own line. */
static void on_note(void *arg, const char *message)
{
    struct cli *cli = arg;
    if (!cli->quiet) {
        end_progress_line();
        cli_eprintf("cdm: %s\n", message);
    }
}

cdm_ctx *cli_ctx(struct cli *cli)
{
    if (cli->ctx)
        return cli->ctx;
    struct cdm_options options = {
        .root = cli->root,
        .config_path = cli->config,
        .progress = (!cli->quiet && !cli->json && cli_stderr_is_terminal()) ? on_progress : NULL,
        .warn = on_warning,
        .note = on_note,
        .callback_arg = cli,
        .command = cli->command_line,
        .verbose = cli->verbose,
    };
    if (cdm_ctx_new(&cli->ctx, &options) != CDM_OK) {
        cli_fail(cli);
        return NULL;
    }
    return cli->ctx;
}

int cli_fail(struct cli *cli)
{
    cli_eprintf("cdm: %s\n", cdm_error_message(cli->ctx));
    int code = cdm_error_code(cli->ctx);
    return code == CDM_EINVAL ? EXIT_USAGE : EXIT_FAIL;
}

int cli_usage_error(struct cli *cli, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cdm: ", stderr);
    cli_vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (cli->command)
        cli_print_usage(stderr, cli->command);
    return EXIT_USAGE;
}

void cli_info(struct cli *cli, const char *fmt, ...)
{
    if (cli->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    cli_vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void cli_format_time(long long t, char *out, size_t size)
{
    time_t tt = (time_t)t;
    struct tm *tm = gmtime(&tt);
    if (!tm || !strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", tm))
        snprintf(out, size, "%lld", t);
}

void cli_json_install(struct json *j, const struct cdm_install_info *in)
{
    char when[32];
    cli_format_time(in->installed_at, when, sizeof(when));
    json_kv_string(j, "id", in->id);
    json_kv_string(j, "version", in->version);
    json_kv_int(j, "cuda", in->cuda);
    json_kv_string(j, "platform", in->platform);
    json_kv_string(j, "path", in->path);
    json_kv_int(j, "size", (long long)in->size);
    json_kv_string(j, "sha256", in->sha256);
    json_kv_bool(j, "official", in->official);
    json_kv_string(j, "installed_at", when);
    json_kv_string(j, "layout", in->layout);
    json_kv_string(j, "bin_dir", in->bin_dir);
    json_kv_string(j, "lib_dir", in->lib_dir);
    json_kv_string(j, "include_dir", in->include_dir);
    json_kv_string(j, "archive", in->archive_name);
    json_kv_string(j, "state", cdm_install_state_name(in->state));
}

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
        cli_print_overview(help ? stdout : stderr);
        return finish_output(help ? EXIT_OK : EXIT_USAGE);
    }
    const struct cli_command *c = cli_find_command(argv[0]);
    if (!c) {
        const char *names[64];
        size_t n = 0;
        for (const struct cli_command *const *k = cli_commands; *k && n < 64; k++)
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
    rc = cli_parse(cli, c, argc - 1, argv + 1, args);
    if (rc == EXIT_OK)
        rc = c->run(cli, args);
    cdm_ctx_free(cli->ctx);
    return finish_output(rc);
}

int cli_main(int argc, char **argv)
{
    struct cli cli = {0};
    struct strbuf line = STRBUF_INIT;
    sb_add(&line, "cdm");
    for (int i = 1; i < argc && line.len < 200; i++)
        sb_addf(&line, " %s", argv[i]);
    cli.command_line = sb_detach(&line);
    int rc = run_main(&cli, argc - 1, argv + 1);
    free(cli.command_line);
    return rc;
}
