/* cdm's entry point: global options, the command table, exit codes. */
#include "cli.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct cli_command cli_commands[] = {
    {"install", cmd_install, "install a cuDNN archive into the store",
     "<ARCHIVE|VERSION> [--cuda N] [--sha256 HEX] [--force] [--platform P]",
     "ARCHIVE is a .zip, .tar.xz or .tgz from NVIDIA; VERSION (8.8.0, 9.1) is looked up\n"
     "in the folders of [install] sources.\n"
     "  --cuda N        the CUDA major of the build variant, when several match\n"
     "  --sha256 HEX    the archive must have this SHA-256\n"
     "  --force         replace an install of the same id made from another archive\n"
     "  --platform P    fill a store for another platform (windows-x86_64, linux-x86_64)\n"},
    {"list", cmd_list, "list installed versions and the projects using each", "", ""},
    {"remove", cmd_remove, "remove an installed version", "<VERSION> [--cuda N] [--force]",
     "  --force         unlink the projects that use it first\n"},
    {"link", cmd_link, "link a project to an installed version",
     "<PROJECT> [VERSION] [--name NAME] [--cuda N]",
     "Creates or switches PROJECT/cuda_link and writes PROJECT/.cudnn-version.\n"
     "VERSION omitted: the one in the project's .cudnn-version pin file.\n"
     "  --name NAME     the link's name (default: the project's, or [link] name)\n"
     "  --cuda N        the CUDA major of the build variant, when several match\n"},
    {"unlink", cmd_unlink, "remove a project's link (never its target)", "<PROJECT> [--forget]",
     "  --forget        also delete the .cudnn-version pin file\n"},
    {"which", cmd_which, "show the version a project uses and where its link points", "[PROJECT]",
     "PROJECT defaults to the nearest folder upwards with a link or pin file.\n"},
    {"history", cmd_history, "list a project's link generations", "[PROJECT]",
     "The current generation is marked with '*'.\n"},
    {"rollback", cmd_rollback, "go back to a project's previous generation", "<PROJECT> [--to GEN]",
     "The rollback is a new generation: rolling back twice returns.\n"
     "  --to GEN        go back to generation GEN (see 'cdm history')\n"},
    {"activate", cmd_activate, "print shell lines that put a project's cuDNN in use",
     "[PROJECT] [--shell SHELL] [--auto]",
     "PROJECT defaults to the nearest folder upwards with a link or pin file. Use it as:\n"
     "  bash/zsh/sh:  eval \"$(cdm activate)\"\n"
     "  fish:         cdm activate --shell fish | source\n"
     "  PowerShell:   cdm activate --shell pwsh | Out-String | Invoke-Expression\n"
     "  cmd:          for /f \"delims=\" %i in ('cdm activate --shell cmd') do @%i\n"
     "  --shell SHELL pwsh powershell cmd bash zsh fish sh (default: $CDM_SHELL, the\n"
     "                parent process on Windows, else $SHELL)\n"
     "  --auto        for prompt hooks: follow the working folder (PROJECT: where to\n"
     "                start), deactivate outside projects, print nothing when current\n"},
    {"deactivate", cmd_deactivate, "print shell lines that undo activate exactly",
     "[--shell SHELL]", "  --shell SHELL pwsh powershell cmd bash zsh fish sh\n"},
    {"hook", cmd_hook, "print a profile snippet that activates projects on cd",
     "<bash|zsh|fish|pwsh>",
     "  bash/zsh: eval \"$(cdm hook bash)\"   fish: cdm hook fish | source\n"
     "  PowerShell: (& cdm hook pwsh) | Out-String | Invoke-Expression\n"},
    {"doctor", cmd_doctor, "find out why a project's cuDNN does not load",
     "[PROJECT] [--cudnn VERSION] [--cuda N]",
     "Checks, in order: the store and the project's link and pin; loading the project's\n"
     "cuDNN and calling it; its libraries' imports; other cuDNN copies the loader finds\n"
     "first; the driver and the CUDA toolkit against the compatibility tables.\n"
     "PROJECT defaults to the nearest folder upwards with a link or pin file; without\n"
     "one only the store is checked, unless --cudnn names an install to examine.\n"
     "  --cudnn V       examine this install (instead of the project's)\n"
     "  --cuda N        the CUDA major of the build variant, when several match\n"
     "Environment: CDM_DRIVER_LIB_PATH, a list of folders, replaces the loader's search\n"
     "for the driver's NVML and libcuda (nvml.dll, nvcuda.dll) libraries.\n"
     "Exit status 1 when a check fails.\n"},
    {"verify", cmd_verify, "check installed files against the hashes recorded at install",
     "[VERSION] [--cuda N]",
     "Re-hashes every file of one install (all without VERSION) and reports missing,\n"
     "changed and extra files. Exit status 1 on any difference.\n"},
    {"gc", cmd_gc, "clean up leftovers of interrupted work", "", ""},
    {"complete", cmd_complete, "print completion candidates (used by completions/)",
     "[--current=WORD] -- [WORD...]",
     "WORDs are the command line after 'cdm' up to the cursor; WORD the one being\n"
     "completed. Prints one candidate a line; nothing means file names.\n"},
    {"help", cmd_help, "show help for a command", "[COMMAND]", ""},
    {NULL, NULL, NULL, NULL, NULL},
};

static const struct cli_command *find_command(const char *name)
{
    for (const struct cli_command *c = cli_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static void print_overview(FILE *out)
{
    fprintf(out, "usage: cdm [--root DIR] [--config FILE] [--json] [--quiet] [--verbose] "
                 "<command> [<args>]\n\n"
                 "Keep several cuDNN versions side by side and give each project its own.\n\n"
                 "commands:\n");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        fprintf(out, "  %-12s %s\n", c->name, c->summary);
    fprintf(out, "\nglobal options:\n"
                 "  --root DIR      the store (default: $CDM_ROOT, [store] root, or\n"
                 "                  ${XDG_DATA_HOME:-~/.local/share}/cdm; C:\\cudnn_archive on "
                 "Windows)\n"
                 "  --config FILE   the configuration (default: $CDM_CONFIG or the per-user file)\n"
                 "  --json          print one JSON document on stdout\n"
                 "  --quiet         no messages or progress\n"
                 "  --verbose       more messages\n"
                 "  --version       print the version\n\n"
                 "'cdm help COMMAND' describes a command.\n");
}

static void print_command_help(FILE *out, const struct cli_command *c)
{
    fprintf(out, "usage: cdm %s %s\n\n%s\n", c->name, c->usage, c->summary);
    if (c->help && *c->help)
        fprintf(out, "\n%s", c->help);
}

int cmd_help(struct cli *cli, int argc, char **argv)
{
    const char *name = NULL;
    int rc = cli_parse(cli, argc, argv, NULL, &name, 0, 1);
    if (rc)
        return rc;
    if (!name) {
        print_overview(stdout);
        return EXIT_OK;
    }
    const struct cli_command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "cdm: no command '%s'; see 'cdm help'\n", name);
        return EXIT_USAGE;
    }
    print_command_help(stdout, c);
    return EXIT_OK;
}

static void on_warning(void *arg, const char *message)
{
    struct cli *cli = arg;
    if (!cli->quiet)
        fprintf(stderr, "cdm: warning: %s\n", message);
}

/* Progress on a terminal only: bytes, percent, rate; at most ten updates a second. */
struct progress {
    struct timespec start, last;
    bool shown;
};
static struct progress progress_state;

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    struct progress *p = &progress_state;
    struct timespec now;
    cli_now(&now);
    if (!p->shown) {
        p->start = p->last = now;
        p->shown = true;
    }
    if (done < total && seconds_between(&p->last, &now) < 0.1)
        return;
    p->last = now;
    char d[32], t[32], r[32];
    double elapsed = seconds_between(&p->start, &now);
    format_size(d, sizeof(d), done);
    format_size(t, sizeof(t), total);
    format_size(r, sizeof(r), elapsed > 0 ? (unsigned long long)((double)done / elapsed) : 0);
    fprintf(stderr, "\r  %s / %s  %3d%%  %s/s   ", d, t, total ? (int)(done * 100 / total) : 0, r);
    if (done >= total)
        fputc('\n', stderr);
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
        .callback_arg = cli,
    };
    if (cdm_ctx_new(&cli->ctx, &options) != CDM_OK) {
        cli_fail(cli);
        return NULL;
    }
    return cli->ctx;
}

int cli_fail(struct cli *cli)
{
    fprintf(stderr, "cdm: %s\n", cdm_error_message(cli->ctx));
    int code = cdm_error_code(cli->ctx);
    return code == CDM_EINVAL ? EXIT_USAGE : EXIT_FAIL;
}

int cli_usage_error(struct cli *cli, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cdm: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (cli->command)
        fprintf(stderr, "usage: cdm %s %s\n", cli->command->name, cli->command->usage);
    return EXIT_USAGE;
}

void cli_info(struct cli *cli, const char *fmt, ...)
{
    if (cli->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

int cli_parse(struct cli *cli, int argc, char **argv, const struct cli_option *options,
              const char **positionals, int min_pos, int max_pos)
{
    int npos = 0;
    bool only_positionals = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!only_positionals && !strcmp(arg, "--")) {
            only_positionals = true;
            continue;
        }
        if (!only_positionals && arg[0] == '-' && arg[1]) {
            const char *eq = strchr(arg, '=');
            size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
            const struct cli_option *o = options;
            while (o && o->name && !(strlen(o->name) == len && !strncmp(o->name, arg, len)))
                o++;
            if (!o || !o->name)
                return cli_usage_error(cli, "unknown option '%.*s'", (int)len, arg);
            if (o->flag) {
                if (eq)
                    return cli_usage_error(cli, "option '%s' takes no value", o->name);
                *o->flag = true;
            } else if (eq) {
                *o->value = eq + 1;
            } else if (i + 1 < argc) {
                *o->value = argv[++i];
            } else {
                return cli_usage_error(cli, "option '%s' needs a value", o->name);
            }
            continue;
        }
        if (npos >= max_pos)
            return cli_usage_error(cli, "unexpected argument '%s'", arg);
        positionals[npos++] = arg;
    }
    if (npos < min_pos)
        return cli_usage_error(cli, "missing argument");
    return EXIT_OK;
}

int cli_start(struct cli *cli, int argc, char **argv, const struct cli_option *options,
              const char **positionals, int min_pos, int max_pos, cdm_ctx **ctx)
{
    int rc = cli_parse(cli, argc, argv, options, positionals, min_pos, max_pos);
    if (rc)
        return rc;
    *ctx = cli_ctx(cli);
    return *ctx ? EXIT_OK : EXIT_FAIL;
}

int cli_parse_cuda(struct cli *cli, const char *text, int *cuda)
{
    *cuda = 0;
    if (!text)
        return EXIT_OK;
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v <= 0 || v > 99)
        return cli_usage_error(cli, "--cuda takes a CUDA major version such as 12, not '%s'", text);
    *cuda = (int)v;
    return EXIT_OK;
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
}

/* Global options may stand before or after the command; they are taken out of argv. */
static int take_globals(struct cli *cli, int *argc, char **argv, bool *version, bool *help)
{
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i];
        const char **value = NULL;
        if (!strcmp(a, "--")) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        if (!strcmp(a, "--json"))
            cli->json = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            cli->quiet = true;
        else if (!strcmp(a, "--verbose") || !strcmp(a, "-v"))
            cli->verbose = true;
        else if (!strcmp(a, "--version"))
            *version = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            *help = true;
        else if (!strcmp(a, "--root") || !strncmp(a, "--root=", 7))
            value = &cli->root;
        else if (!strcmp(a, "--config") || !strncmp(a, "--config=", 9))
            value = &cli->config;
        else
            argv[out++] = argv[i];
        if (value) {
            const char *eq = strchr(a, '=');
            if (eq)
                *value = eq + 1;
            else if (i + 1 < *argc)
                *value = argv[++i];
            else {
                fprintf(stderr, "cdm: option '%s' needs a value\n", a);
                return EXIT_USAGE;
            }
        }
    }
    *argc = out;
    return EXIT_OK;
}

/* Output that a shell evaluates must be whole: a failed write is an error. */
static int finish_output(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "cdm: cannot write to standard output\n");
        return EXIT_FAIL;
    }
    return rc;
}

int cli_main(int argc, char **argv)
{
    struct cli cli = {0};
    bool version = false, help = false;
    argc--, argv++;
    int rc = take_globals(&cli, &argc, argv, &version, &help);
    if (rc)
        return rc;
    if (version) {
        printf("cdm %s\n", CDM_VERSION_STRING);
        return finish_output(EXIT_OK);
    }
    if (argc == 0) {
        print_overview(help ? stdout : stderr);
        return finish_output(help ? EXIT_OK : EXIT_USAGE);
    }
    const struct cli_command *c = find_command(argv[0]);
    if (!c) {
        fprintf(stderr, "cdm: '%s' is not a command; see 'cdm help'\n", argv[0]);
        return EXIT_USAGE;
    }
    cli.command = c;
    if (help) {
        print_command_help(stdout, c);
        return finish_output(EXIT_OK);
    }
    rc = c->run(&cli, argc - 1, argv + 1);
    cdm_ctx_free(cli.ctx);
    return finish_output(rc);
}
