/* cdm scan: every copy of cuDNN on the machine, and what the store could save. */
#include "cli.h"

#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What cdm install + cdm attach would free: every copy in a Python environment that is not
 * attached yet, less, for each version the store does not have, the one copy the store
 * would keep. Toolkits and the system's folders are counted as they are (deploy, not
 * attach, serves them). */
static uint64_t freeable(const struct cdm_scan_copy *c, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        bool env = !strcmp(c[i].kind, "wheel") || !strcmp(c[i].kind, "venv") ||
                   !strcmp(c[i].kind, "conda") || !strcmp(c[i].kind, "user site");
        if (!env || c[i].attached)
            continue;
        bool first_of_its_version = !c[i].same_as[0];
        for (size_t k = 0; k < i && first_of_its_version; k++)
            first_of_its_version = strcmp(c[k].version, c[i].version) || c[k].cuda != c[i].cuda;
        if (!first_of_its_version || c[i].same_as[0])
            total += c[i].size;
    }
    return total;
}

static void print_json(const struct cdm_scan_copy *c, size_t n, uint64_t total, uint64_t freed)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_key(&j, "copies");
    json_array_begin(&j);
    for (size_t i = 0; i < n; i++) {
        json_object_begin(&j);
        json_kv_string(&j, "path", c[i].path);
        json_kv_string(&j, "kind", c[i].kind);
        json_kv_string(&j, "version", c[i].version);
        json_kv_int(&j, "cuda", c[i].cuda);
        json_kv_int(&j, "size", (long long)c[i].size);
        json_kv_int(&j, "files", c[i].files);
        json_kv_bool(&j, "attached", c[i].attached);
        json_kv_string(&j, "same_as", c[i].same_as);
        json_object_end(&j);
    }
    json_array_end(&j);
    json_kv_int(&j, "size", (long long)total);
    json_kv_int(&j, "freeable", (long long)freed);
    json_object_end(&j);
    json_print(&j, stdout);
}

static int run_scan(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_scan_copy *copies;
    size_t n;
    const char *dir = args->pos[0];
    if (cdm_scan(ctx, dir ? &dir : NULL, dir ? 1 : 0, &copies, &n) != CDM_OK)
        return cli_fail(cli);
    uint64_t total = 0, freed = freeable(copies, n);
    for (size_t i = 0; i < n; i++)
        total += copies[i].size;
    if (cli->json) {
        print_json(copies, n, total, freed);
    } else {
        if (n)
            cli_printf("%-10s %-12s %-4s %10s %-8s %-18s %s\n", "KIND", "VERSION", "CUDA", "SIZE",
                       "ATTACHED", "IN THE STORE AS", "PATH");
        for (size_t i = 0; i < n; i++) {
            char size[32], cuda[8] = "?";
            format_size(size, sizeof(size), copies[i].size);
            if (copies[i].cuda)
                snprintf(cuda, sizeof(cuda), "%d", copies[i].cuda);
            cli_printf("%-10s %-12s %-4s %10s %-8s %-18s %s\n", copies[i].kind,
                       copies[i].version[0] ? copies[i].version : "?", cuda, size,
                       copies[i].attached ? "yes" : "no",
                       copies[i].same_as[0] ? copies[i].same_as : "-", copies[i].path);
        }
        char all[32], save[32];
        format_size(all, sizeof(all), total);
        format_size(save, sizeof(save), freed);
        cli_info(cli, "%zu cop%s of cuDNN, %s; cdm install and cdm attach would free %s\n", n,
                 n == 1 ? "y" : "ies", all, save);
    }
    free(copies);
    return EXIT_OK;
}

static const struct cli_arg scan_args[] = {
    {"DIR", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

const struct cli_command cli_cmd_scan = {
    .name = "scan",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_scan,
    .summary = "list every copy of cuDNN on the machine, read only",
    .args = scan_args,
    .description =
        "Looks in the Python environments below the home folder (venvs, conda environments), "
        "[scan] paths, the CUDA toolkits and the system's folders, or in DIR and the "
        "environments below it. Each copy is listed with its version, CUDA major, size, "
        "whether cdm attach links it to the store already, and the install with the same "
        "library bytes; then the space that cdm install DIR and cdm attach would free.\n"
        " cdm scan --json\n",
};
