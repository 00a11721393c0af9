/* cdm install: an archive, or a version found in [install] sources or downloaded from
 * [fetch] base, into the store. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

enum {
    OPT_CUDA,
    OPT_SHA256,
    OPT_FORCE,
    OPT_PLATFORM,
    OPT_FROM_STORE,
    OPT_FROM,
    OPT_BUILD,
    OPT_ACCEPT_LICENSE,
    OPT_FROM_BUNDLE
};

/* One file's install as JSON, into j. */
static void json_result(struct json *j, const struct cdm_install_result *result)
{
    const struct cdm_install_info *in = &result->install;
    json_object_begin(j);
    json_kv_string(j, "id", in->id);
    json_kv_string(j, "version", in->version);
    json_kv_int(j, "cuda", in->cuda);
    json_kv_string(j, "path", in->path);
    json_kv_string(j, "sha256", in->sha256);
    json_kv_bool(j, "changed", result->changed);
    json_kv_bool(j, "official", in->official);
    json_kv_bool(j, "downloaded", result->downloaded);
    json_kv_string(j, "source", in->source);
    json_kv_string(j, "from", in->archive_name);
    json_kv_int(j, "shared_files", (long long)result->shared_files);
    json_kv_int(j, "shared_bytes", (long long)result->shared_bytes);
    if (result->kept) {
        json_kv_bool(j, "kept", true);
        json_kv_string(j, "completes", result->completes);
    }
    json_object_end(j);
}

static void say_result(struct cli *cli, const char *what, const struct cdm_install_result *result)
{
    const struct cdm_install_info *in = &result->install;
    if (result->changed) {
        cli_info(cli, "installed %s%s into '%s'\n", in->id,
                 in->official ? " (official NVIDIA archive)" : "", in->path);
        if (result->shared_files)
            cli_info(cli,
                     "  %zu file%s (%llu bytes) stored once: hard links to the identical "
                     "files of %s%s\n",
                     result->shared_files, result->shared_files == 1 ? "" : "s",
                     (unsigned long long)result->shared_bytes, result->shared_with,
                     result->shared_with_others ? " and of other installs" : "");
        if (cli->verbose) {
            /* One line a call: a line break inside a format is escaped with the names. */
            cli_info(cli, "  %s %s, sha256 %s\n", in->source, in->archive_name, in->sha256);
            cli_info(cli, "  layout %s, bin '%s', lib '%s', include '%s'\n", in->layout,
                     in->bin_dir, in->lib_dir, in->include_dir);
            if (result->unpacked_by[0])
                cli_info(cli, "  unpacked: %s\n", result->unpacked_by);
        }
    } else if (result->kept) {
        cli_info(cli, "kept '%s' as a part of %s, not installed yet; install %s to complete it\n",
                 what, in->id, result->completes);
    } else if (result->by_version && in->upstream) {
        cli_info(cli, "%s is installed in an upstream store ('%s', read only); nothing to do\n",
                 in->id, in->path);
    } else if (result->by_version) {
        cli_info(cli, "%s is installed (from %s '%s'); nothing to do\n", in->id, in->source,
                 in->archive_name);
    } else if (result->other_source) {
        cli_info(cli,
                 "%s is already installed (from %s '%s'), with the same library bytes; "
                 "nothing to do\n",
                 in->id, in->source, in->archive_name);
    } else {
        cli_info(cli, "%s is already installed from this %s; nothing to do\n", in->id, in->source);
    }
}

/* --from-bundle FILE: this machine's archive out of an offline bundle (cdm bundle). */
static int install_bundle(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args,
                          struct cdm_install_request *req)
{
    const char *bundle = args->value[OPT_FROM_BUNDLE];
    if (!bundle)
        return cli_usage_error(cli, "give the FILE or VERSION to install (or --from-bundle FILE)");
    if (args->pos[0] || req->sha256 || req->platform || req->from || req->build ||
        args->value[OPT_FROM_STORE])
        return cli_usage_error(cli, "--from-bundle installs what the bundle's lock names for "
                                    "this machine: it takes no FILE or VERSION, --sha256, "
                                    "--platform, --from, --from-store or --build");
    struct cdm_install_result result;
    if (cdm_install_from_bundle(ctx, bundle, req, &result) != CDM_OK) {
        int rc = cli_fail(cli);
        return cdm_interrupted(ctx) ? EXIT_INTERRUPTED : rc;
    }
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_result(&j, &result);
        json_print(&j, stdout);
        json_free(&j);
    } else {
        say_result(cli, bundle, &result);
    }
    return EXIT_OK;
}

static int run_install(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_install_request req = {.what = args->pos[0],
                                      .cuda = (int)args->number[OPT_CUDA],
                                      .sha256 = args->value[OPT_SHA256],
                                      .platform = args->value[OPT_PLATFORM],
                                      .force = args->given[OPT_FORCE],
                                      .build = (int)args->number[OPT_BUILD],
                                      .from = args->value[OPT_FROM],
                                      .accept_license = args->given[OPT_ACCEPT_LICENSE]};
    cli_catch_interrupts(ctx);
    if (args->value[OPT_FROM_BUNDLE] || !args->pos[0])
        return install_bundle(cli, ctx, args, &req);
    const char *from = args->value[OPT_FROM_STORE];
    bool several = args->pos[1] != NULL;
    if (req.from && strcmp(req.from, "nvidia") && strcmp(req.from, "pypi"))
        return cli_usage_error(cli,
                               "--from takes nvidia (NVIDIA's archives, [fetch] base) or "
                               "pypi (NVIDIA's wheels, [fetch] index_url), not '%s'",
                               req.from);
    if (from && (req.sha256 || req.platform || req.force || req.from || req.build))
        return cli_usage_error(cli, "--from-store copies an install as it is: it takes no "
                                    "--sha256, --platform, --force, --from or --build");
    if (several && (from || req.sha256))
        return cli_usage_error(cli, "several files are installed one after the other: "
                                    "--from-store and --sha256 take one");
    /* auto: the newest version this machine and project accept, of the installs and of
     * what [fetch] base offers (cdm resolve --available says why) */
    char chosen[32] = "";
    if (!strcmp(args->pos[0], "auto")) {
        if (several || from || req.platform || req.sha256)
            return cli_usage_error(cli, "auto chooses one version for this machine: it takes no "
                                        "other file, --from-store, --platform or --sha256");
        struct cdm_choose_request cr = {NULL, true, false, req.cuda, false};
        struct cdm_choice choice;
        if (cdm_choose_auto(ctx, &cr, &choice) != CDM_OK)
            return cli_fail(cli);
        cli_print_choice_line(cli, &choice);
        snprintf(chosen, sizeof(chosen), "%s", choice.chosen->version);
        req.cuda = choice.chosen->cuda;
        cdm_choice_free(&choice);
    }
    struct json j;
    json_init(&j);
    if (several)
        json_array_begin(&j);
    /* several files: the packages of one version (NVIDIA's Debian packages), in turn */
    for (int i = 0; i < CLI_MAX_ARGS && args->pos[i]; i++) {
        struct cdm_install_result result;
        const char *others[CLI_MAX_ARGS] = {0};
        for (int k = 0, n = 0; k < CLI_MAX_ARGS && args->pos[k]; k++)
            if (k != i)
                others[n++] = args->pos[k];
        req.what = *chosen ? chosen : args->pos[i];
        req.together = others;
        if ((from ? cdm_install_from_store(ctx, from, &req, &result)
                  : cdm_install(ctx, &req, &result)) != CDM_OK) {
            json_free(&j);
            int rc = cli_fail(cli);
            return cdm_interrupted(ctx) ? EXIT_INTERRUPTED : rc;
        }
        if (cli->json)
            json_result(&j, &result);
        else
            say_result(cli, req.what, &result);
        if (result.took_together) /* the others were its parts */
            break;
    }
    if (several)
        json_array_end(&j);
    if (cli->json)
        json_print(&j, stdout);
    json_free(&j);
    return EXIT_OK;
}

static const struct cli_arg install_args[] = {
    /* optional only for --from-bundle FILE (install_bundle says so) */
    {"FILE|VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_FILES},
    /* the other packages of one version: NVIDIA's Debian packages are three */
    {"FILE", CLI_ARG_OPTIONAL, CLI_COMPLETE_FILES},
    {"FILE", CLI_ARG_OPTIONAL, CLI_COMPLETE_FILES},
    CLI_ARG_END,
};

static const struct cli_option install_options[] = {
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_SHA256] =
        CLI_OPT_VALUE("sha256", "HEX", CLI_COMPLETE_NONE, "the archive must have this SHA-256"),
    [OPT_FORCE] =
        CLI_OPT_FLAG("force", "replace an install of the same id made from another archive; "
                              "install one this machine's GPU or driver cannot run (else "
                              "refused unless --platform)"),
    [OPT_PLATFORM] =
        CLI_OPT_VALUE("platform", "P", CLI_COMPLETE_NONE,
                      "fill a store for another platform (windows-x86_64, linux-x86_64)"),
    [OPT_FROM_STORE] = CLI_OPT_VALUE("from-store", "DIR", CLI_COMPLETE_DIRS,
                                     "copy VERSION from the store at DIR (a shared one), "
                                     "checking every file's hash"),
    [OPT_FROM] = CLI_OPT_VALUE("from", "SOURCE", CLI_COMPLETE_NONE,
                               "download VERSION from nvidia (NVIDIA's archive) or pypi (NVIDIA's "
                               "wheel from the package index); default: [fetch] sources"),
    [OPT_BUILD] = CLI_OPT_INT("build", "N", CLI_COMPLETE_NONE, 1, 9999999,
                              "the build number, the 4th part of a version such as 9.1.0.70",
                              "for a folder that does not say it: its build number (70 of "
                              "9.1.0.70)"),
    [OPT_ACCEPT_LICENSE] =
        CLI_OPT_FLAG("accept-license", "accept NVIDIA's cuDNN licence for this install, on "
                                       "record ('cdm sbom' shows it; [install] require_license "
                                       "asks for it)"),
    [OPT_FROM_BUNDLE] = CLI_OPT_VALUE("from-bundle", "FILE", CLI_COMPLETE_FILES,
                                      "install this machine's archive from an offline bundle "
                                      "('cdm bundle'), held to its lock"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_install = {
    .name = "install",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_install,
    .summary = "install cuDNN: an archive, wheel, conda package or folder",
    .args = install_args,
    .options = install_options,
    .description =
        "FILE is a .zip, .tar.xz or .tgz from NVIDIA, NVIDIA's wheel "
        "(nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl, checked against its "
        "RECORD), a conda package (.conda, .tar.bz2, against its info/paths.json), NVIDIA's "
        "Debian packages of one version (the runtime, headers and dev .deb, given together or "
        "one after the other, against their md5sums), or a folder "
        "holding cuDNN (a venv, a toolkit, NVIDIA's Windows installer's tree); VERSION (8.8.0, "
        "9.27) is looked up "
        "in the folders of [install] sources, else downloaded from [fetch] base (NVIDIA's "
        "redist folder by default) and checked against its manifest's size and SHA-256.\n"
        "VERSION auto: the newest version that this machine's GPUs and driver and the "
        "project's toolkit, pin and Python environments accept, of the installs and what "
        "[fetch] base offers ('cdm resolve --available' says why).\n"
        " cdm install 9.27 --cuda 13\n",
};
