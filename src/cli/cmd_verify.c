/* cdm verify: installed files against the hashes recorded at install. */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"missing", "changed", "extra"};

struct issues {
    struct cli *cli;
    cdm_ctx *ctx;
    struct json *j;               /* NULL for text */
    struct cdm_install_info from; /* the install of the last issue: where it came from */
};

/* The record of the install an issue is in, read once for its issues (they come install
 * by install): the file to install again to repair it. */
static const struct cdm_install_info *install_of(struct issues *s, const char *id)
{
    if (strcmp(s->from.id, id)) {
        memset(&s->from, 0, sizeof(s->from));
        if (cdm_resolve(s->ctx, id, 0, &s->from) != CDM_OK)
            copy_text(s->from.id, sizeof(s->from.id), id); /* "" source: not said */
        if (!s->cli->json && s->from.source[0])
            cli_printf("%s came from %s '%s' (sha256 %.12s...): 'cdm install FILE --force' "
                       "with that file repairs it\n",
                       id, s->from.source, s->from.archive_name, s->from.sha256);
    }
    return &s->from;
}

static void on_issue(void *arg, const struct cdm_verify_issue *issue)
{
    struct issues *s = arg;
    const struct cdm_install_info *from = install_of(s, issue->install_id);
    if (s->j) {
        json_object_begin(s->j);
        json_kv_string(s->j, "id", issue->install_id);
        json_kv_string(s->j, "path", issue->path);
        json_kv_string(s->j, "kind", kind_names[issue->kind]);
        json_kv_string(s->j, "detail", issue->detail);
        json_kv_string(s->j, "source", from->source);
        json_kv_string(s->j, "from", from->archive_name);
        json_object_end(s->j);
    } else {
        cli_printf("%-8s %s/%s: %s\n", kind_names[issue->kind], issue->install_id, issue->path,
                   issue->detail);
    }
}

enum { OPT_CUDA };

static int run_verify(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct json j;
    json_init(&j);
    struct issues s;
    memset(&s, 0, sizeof(s));
    s.cli = cli, s.ctx = ctx, s.j = cli->json ? &j : NULL;
    if (cli->json) {
        json_object_begin(&j);
        json_key(&j, "problems");
        json_array_begin(&j);
    }
    struct cdm_verify_result r;
    if (cdm_verify(ctx, args->pos[0], (int)args->number[OPT_CUDA], on_issue, &s, &r) != CDM_OK) {
        /* The problems found so far are dropped with the unfinished document: stdout
         * holds no half of one. */
        json_free(&j);
        return cli_fail(cli);
    }
    bool ok = !r.missing && !r.changed && !r.extra;
    if (r.mode_unchecked && cli->verbose && !cli->json)
        fprintf(stderr,
                "cdm: %u file(s) have no mode recorded (installed by a cdm before modes were "
                "kept, or on Windows, which has none): their size and hash were checked, their "
                "mode was not; 'cdm install --force ARCHIVE' records it\n",
                (unsigned)r.mode_unchecked);
    if (cli->json) {
        json_array_end(&j);
        json_kv_bool(&j, "ok", ok);
        json_kv_int(&j, "installs", (long long)r.installs);
        json_kv_int(&j, "files", (long long)r.files);
        json_kv_int(&j, "missing", (long long)r.missing);
        json_kv_int(&j, "changed", (long long)r.changed);
        json_kv_int(&j, "extra", (long long)r.extra);
        json_kv_int(&j, "mode_unchecked", (long long)r.mode_unchecked);
        json_kv_int(&j, "views", (long long)r.views);
        json_object_end(&j);
        json_print(&j, stdout);
    } else if (ok && r.views) {
        cli_info(cli, "%u install(s), %u file(s), %u view(s): all as installed\n",
                 (unsigned)r.installs, (unsigned)r.files, (unsigned)r.views);
    } else if (ok) {
        cli_info(cli, "%u install(s), %u file(s): all as installed\n", (unsigned)r.installs,
                 (unsigned)r.files);
    } else {
        cli_eprintf("cdm: %u install(s), %u file(s): %u missing, %u changed, %u extra; "
                    "install the archive again with 'cdm install ARCHIVE --force' (a view: 'cdm "
                    "link PROJECT --toolkit X' builds it again)\n",
                    (unsigned)r.installs, (unsigned)r.files, (unsigned)r.missing,
                    (unsigned)r.changed, (unsigned)r.extra);
    }
    return ok ? EXIT_OK : EXIT_FAIL;
}

static const struct cli_arg verify_args[] = {
    {"VERSION", CLI_ARG_OPTIONAL, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option verify_options[] = {
    [OPT_CUDA] = CLI_OPT_CUDA,
    CLI_OPT_END,
};

const struct cli_command cli_cmd_verify = {
    .name = "verify",
    .needs = CLI_NEEDS_STORE_READ,
    .run = run_verify,
    .summary = "check installed files against the hashes recorded at install",
    .args = verify_args,
    .options = verify_options,
    .description = "Re-hashes every file of one install (all without VERSION) and reports missing, "
                   "changed and extra files. Exit status 1 on any difference.\n",
};
