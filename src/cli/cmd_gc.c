/* cdm gc: leftovers of interrupted work; with --unused, the installs nothing uses. */
#include "cli.h"

#include "base/util.h"

#include <stdio.h>
#include <string.h>

/* Partial downloads gc deletes: named on stderr, kept for --json (NUL-separated). */
struct partials {
    struct cli *cli;
    struct strbuf paths;
};

static void on_partial(void *arg, const char *path, uint64_t size)
{
    struct partials *p = arg;
    char text[32];
    format_size(text, sizeof(text), size);
    if (!p->cli->json)
        cli_info(p->cli, "removing partial download '%s' (%s); nothing is resuming it\n", path,
                 text);
    sb_add(&p->paths, path);
    sb_addc(&p->paths, '\0');
}

enum { OPT_UNUSED, OPT_KEEP, OPT_DRY_RUN };

static int check_gc(struct cli *cli, const struct cli_args *args)
{
    if (!args->given[OPT_UNUSED] && (args->given[OPT_KEEP] || args->given[OPT_DRY_RUN]))
        return cli_usage_error(cli, "--keep and --dry-run go with --unused");
    return EXIT_OK;
}

static void print_unused_json(const struct cdm_unused *v, size_t n, bool dry_run)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_kv_bool(&j, "dry_run", dry_run);
    json_key(&j, "installs");
    json_array_begin(&j);
    for (size_t i = 0; i < n; i++) {
        json_object_begin(&j);
        json_kv_string(&j, "id", v[i].id);
        json_kv_int(&j, "size", (long long)v[i].size);
        json_kv_bool(&j, "removed", v[i].removed);
        json_kv_string(&j, "kept_because", v[i].why);
        json_object_end(&j);
    }
    json_array_end(&j);
    json_object_end(&j);
    json_print(&j, stdout);
}

/* cdm gc --unused: each install, kept with its reason or removed with its size. */
static int run_unused(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_gc_unused_request req = {(unsigned)args->number[OPT_KEEP], args->given[OPT_DRY_RUN]};
    struct cdm_unused *v = NULL;
    size_t n = 0;
    if (cdm_gc_unused(ctx, &req, &v, &n) != CDM_OK)
        return cli_fail(cli);
    uint64_t freed = 0;
    size_t removed = 0;
    for (size_t i = 0; i < n; i++) {
        char size[32];
        format_size(size, sizeof(size), v[i].size);
        if (v[i].removed) {
            freed += v[i].size;
            removed++;
        }
        if (!cli->json && v[i].removed)
            cli_info(cli, "%s %s (%s)\n", req.dry_run ? "would remove" : "removed", v[i].id, size);
        else if (!cli->json)
            cli_info(cli, "keeps %s: %s\n", v[i].id, v[i].why);
    }
    char total[32];
    format_size(total, sizeof(total), freed);
    if (cli->json)
        print_unused_json(v, n, req.dry_run);
    else
        cli_info(cli, "%s %zu of %zu install(s), %s\n", req.dry_run ? "would remove" : "removed",
                 removed, n, total);
    free(v);
    return EXIT_OK;
}

static int run_gc(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    if (args->given[OPT_UNUSED])
        return run_unused(cli, ctx, args);
    unsigned removed = 0, partials = 0;
    struct partials seen = {cli, STRBUF_INIT};
    if (cdm_gc(ctx, &removed) != CDM_OK ||
        cdm_downloads_clean(ctx, on_partial, &seen, &partials) != CDM_OK) {
        sb_free(&seen.paths);
        return cli_fail(cli);
    }
    removed += partials;
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        json_kv_int(&j, "removed", removed);
        json_key(&j, "partial_downloads");
        json_array_begin(&j);
        for (const char *p = sb_str(&seen.paths); *p; p += strlen(p) + 1)
            json_string(&j, p);
        json_array_end(&j);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_info(cli, removed ? "removed %u leftover(s)\n" : "nothing to clean up\n", removed);
    }
    sb_free(&seen.paths);
    return EXIT_OK;
}

static const struct cli_option gc_options[] = {
    [OPT_UNUSED] = CLI_OPT_FLAG("unused", "remove the installs no project, attached environment, "
                                          "default, cudnn.lock or deploy of yours uses"),
    [OPT_KEEP] = CLI_OPT_INT("keep", "N", CLI_COMPLETE_NONE, 0, 1000, "a number of installs",
                             "with --unused: keep the N newest unused installs too"),
    [OPT_DRY_RUN] = CLI_OPT_FLAG("dry-run", "with --unused: say what would go, remove nothing"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_gc = {
    .name = "gc",
    .needs = CLI_NEEDS_STORE_WRITE,
    .check = check_gc,
    .run = run_gc,
    .summary = "clean up leftovers; --unused: the installs nothing uses",
    .options = gc_options,
};
