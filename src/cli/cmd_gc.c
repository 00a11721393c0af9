/* cdm gc: leftovers of interrupted work. */
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

static int run_gc(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    (void)args;
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

const struct cli_command cli_cmd_gc = {
    .name = "gc",
    .needs = CLI_NEEDS_STORE_WRITE,
    .run = run_gc,
    .summary = "clean up leftovers of interrupted work",
};
