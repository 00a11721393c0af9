/* cdm doctor: the layered checks, as text or JSON. */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_loaded(struct json *j, const struct cdm_doctor_report *r, char *const *command)
{
    json_key(j, "command");
    json_object_begin(j);
    json_key(j, "argv");
    json_array_begin(j);
    for (char *const *a = command; *a; a++)
        json_string(j, *a);
    json_array_end(j);
    json_key(j, "exit");
    if (r->ran)
        json_int(j, r->exit_code);
    else
        json_null(j);
    json_key(j, "signal");
    if (r->ran && r->exit_signal)
        json_int(j, r->exit_signal);
    else
        json_null(j);
    json_object_end(j);
    json_key(j, "loaded");
    json_array_begin(j);
    for (size_t i = 0; i < r->loaded_count; i++) {
        const struct cdm_loaded *l = &r->loaded[i];
        json_object_begin(j);
        json_kv_string(j, "path", l->path);
        json_kv_string(j, "real_path", l->real_path);
        json_kv_string(j, "install", l->install);
        json_kv_string(j, "version", *l->version ? l->version : NULL);
        json_kv_string(j, "kind", l->kind);
        json_kv_string(j, "folder", l->folder);
        json_kv_string(j, "why", l->why);
        json_kv_int(j, "pid", (long long)l->pid);
        json_object_end(j);
    }
    json_array_end(j);
}

static void print_loaded(const struct cdm_doctor_report *r)
{
    if (!r->ran)
        return;
    cli_printf("loaded by the command (exit status %d):\n", r->exit_code);
    if (!r->loaded_count)
        cli_printf("  no cuDNN, CUDA runtime, cuBLAS or NVRTC library\n");
    for (size_t i = 0; i < r->loaded_count; i++) {
        const struct cdm_loaded *l = &r->loaded[i];
        cli_printf("  %-8s %s\n", l->kind, l->path);
        if (strcmp(l->path, l->real_path))
            cli_printf("           -> %s\n", l->real_path);
        if (l->install)
            cli_printf("           %s, from the store's %s\n", *l->version ? l->version : "?",
                       l->install);
        else
            cli_printf("           %s, outside the store: %s\n",
                       *l->version ? l->version : "version unknown", l->folder);
        cli_printf("           why: %s\n", l->why);
    }
}

enum { OPT_CUDNN, OPT_CUDA, OPT_EXEC, OPT_TIMEOUT, OPT_ALLOW_CPU };

static int check_doctor(struct cli *cli, const struct cli_args *args)
{
    if (args->rest && !args->nrest)
        return cli_usage_error(cli, "give the command to run after '--'");
    return EXIT_OK;
}

static int run_doctor(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    /* everything after "--" is the command to run, untouched by cdm's options; copied
     * so that it ends with NULL, as the program's own argv does */
    char **command = NULL;
    if (args->rest) {
        command = xcalloc((size_t)args->nrest + 1, sizeof(char *));
        for (int i = 0; i < args->nrest; i++)
            command[i] = args->rest[i];
    }
    struct cdm_doctor_request req = {args->pos[0],
                                     args->value[OPT_CUDNN],
                                     (int)args->number[OPT_CUDA],
                                     command,
                                     cli->json,
                                     args->given[OPT_EXEC],
                                     (unsigned)args->number[OPT_TIMEOUT],
                                     args->given[OPT_ALLOW_CPU]};
    struct cdm_doctor_report r;
    if (cdm_doctor(ctx, &req, &r) != CDM_OK) {
        free(command);
        return cli_fail(cli);
    }
    bool ok = true;
    for (size_t i = 0; i < r.count; i++)
        ok = ok && r.checks[i].status != CDM_CHECK_FAIL;
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_bool(&j, "ok", ok);
        json_kv_string(&j, "project", *r.project ? r.project : NULL);
        json_kv_string(&j, "install", *r.install_id ? r.install_id : NULL);
        json_key(&j, "checks");
        json_array_begin(&j);
        for (size_t i = 0; i < r.count; i++) {
            const struct cdm_check *c = &r.checks[i];
            json_object_begin(&j);
            json_kv_string(&j, "name", c->name);
            json_kv_string(&j, "status", cdm_check_status_name(c->status));
            json_kv_string(&j, "detail", c->detail);
            json_kv_string(&j, "fix", c->fix);
            json_object_end(&j);
        }
        json_array_end(&j);
        if (command)
            json_loaded(&j, &r, command);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        if (*r.project || *r.install_id)
            cli_printf("project %s, cuDNN %s\n", *r.project ? r.project : "(none)",
                       *r.install_id ? r.install_id : "(none)");
        for (size_t i = 0; i < r.count; i++) {
            const struct cdm_check *c = &r.checks[i];
            cli_printf("%-5s %-24s %s\n", cdm_check_status_name(c->status), c->name, c->detail);
            if (c->fix)
                cli_printf("      %-24s fix: %s\n", "", c->fix);
        }
        print_loaded(&r);
        fflush(stdout); /* the summary after the report, also where stdout is a pipe */
        if (!ok)
            cli_eprintf("cdm: doctor found problems; see the fixes above\n");
    }
    cdm_doctor_report_free(&r);
    free(command);
    return ok ? EXIT_OK : EXIT_FAIL;
}

static const struct cli_arg doctor_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    {"CMD ARGS", CLI_ARG_REST, CLI_COMPLETE_FILES},
    CLI_ARG_END,
};

static const struct cli_option doctor_options[] = {
    [OPT_CUDNN] = CLI_OPT_VALUE("cudnn", "VERSION", CLI_COMPLETE_INSTALLS,
                                "examine this install (instead of the project's)"),
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_EXEC] = CLI_OPT_FLAG("exec", "with -- CMD: run it as 'cdm exec' does, every cuDNN "
                                      "library it loads taken from the project's install "
                                      "(Linux)"),
    /* no limit unless asked: a training run may rightly take days */
    [OPT_TIMEOUT] =
        CLI_OPT_INT("timeout", "SECONDS", CLI_COMPLETE_NONE, 1, 86400 * 366, "a number of seconds",
                    "with -- CMD: kill it and its process group after SECONDS and "
                    "report what it had loaded (Linux; default: no limit)"),
    [OPT_ALLOW_CPU] = CLI_OPT_FLAG("allow-cpu", "with -- CMD: a run without the GPU (no cuDNN "
                                                "or no CUDA driver loaded) passes"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_doctor = {
    .name = "doctor",
    .needs = CLI_NEEDS_CONTEXT,
    .check = check_doctor,
    .run = run_doctor,
    .summary = "find out why a project's cuDNN does not load",
    .args = doctor_args,
    .options = doctor_options,
    .description =
        "Checks, in order: the store and the project's link and pin; loading the project's "
        "cuDNN and calling it; its libraries' imports; other cuDNN copies the loader finds "
        "first; the driver and the CUDA toolkit against the compatibility tables; the GPUs "
        "and the project's cuDNN against them, and the version 'cdm resolve' would choose; that "
        "every "
        "cuDNN library the install needs (imported or opened by name) comes from the install; "
        "the cuDNN that the project's Python environments (.venv, venv, VIRTUAL_ENV, "
        "CONDA_PREFIX) load.\n"
        "PROJECT defaults to the nearest folder upwards with a link or pin file; without "
        "one only the store is checked, unless --cudnn names an install to examine.\n"
        "With -- CMD [ARGS...]: run CMD with the project activated (as 'cdm activate' sets "
        "it), wait for it, and report every cuDNN, CUDA runtime, cuBLAS and NVRTC library its "
        "processes loaded, from where and why; cuDNN from two folders or versions, or from "
        "outside the project's install, fails; so does a run in a linked project that loaded no "
        "cuDNN or no CUDA driver ('ran without the GPU', naming what it loaded instead), "
        "unless --allow-cpu. With --json the command's standard output goes "
        "to standard error. With --exec the command runs as 'cdm exec' runs it, to show the "
        "difference.\n"
        "Environment: CDM_DRIVER_LIB_PATH, a list of folders, replaces the loader's search "
        "for the driver's NVML and libcuda (nvml.dll, nvcuda.dll) libraries.\n"
        "Exit status 1 when a check fails.\n",
};
