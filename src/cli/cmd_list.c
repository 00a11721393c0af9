/* cdm list: the installs and the projects using each. */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

/* The projects using one install: a run of the usage list, which is sorted by install id. */
struct usage_run {
    const struct cdm_usage *first;
    size_t count;
};

static struct usage_run usage_of(const struct cdm_usage *usage, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first row whose id is not below id */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(usage[mid].install_id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    struct usage_run run = {usage + lo, 0};
    while (lo + run.count < n && strcmp(usage[lo + run.count].install_id, id) == 0)
        run.count++;
    return run;
}

static void print_projects_json(struct json *j, struct usage_run run, const bool *gone)
{
    json_key(j, "projects");
    json_array_begin(j);
    for (size_t i = 0; i < run.count; i++)
        json_string(j, run.first[i].project);
    json_array_end(j);
    /* Recorded projects whose folder is gone; 'cdm gc' drops them. */
    json_key(j, "projects_gone");
    json_array_begin(j);
    for (size_t i = 0; i < run.count; i++)
        if (gone[i])
            json_string(j, run.first[i].project);
    json_array_end(j);
}

static int run_list(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    (void)args;
    int rc = EXIT_OK;
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    if (cdm_list(ctx, &all, &n) != CDM_OK)
        return cli_fail(cli);
    /* Who uses what, read once for all installs rather than once per install. */
    struct cdm_usage *usage = NULL;
    size_t usage_count = 0;
    if (cdm_usage_list(ctx, &usage, &usage_count) != CDM_OK) {
        free(all);
        return cli_fail(cli);
    }
    /* Whether each project is still there, asked of all at once (usage runs index it). */
    const char **projects = xmalloc((usage_count ? usage_count : 1) * sizeof(*projects));
    for (size_t k = 0; k < usage_count; k++)
        projects[k] = usage[k].project;
    bool *all_gone = xcalloc(usage_count ? usage_count : 1, sizeof(*all_gone));
    cdm_projects_gone(projects, usage_count, all_gone);
    free(projects);
    struct json j;
    json_init(&j);
    if (cli->json)
        json_array_begin(&j);
    else if (n == 0)
        cli_info(cli, "no cuDNN installed in '%s'; add one with 'cdm install ARCHIVE'\n",
                 cdm_root(ctx));
    else
        cli_printf("%-22s %-12s %-5s %-15s %10s %-8s %-10s %s\n", "ID", "VERSION", "CUDA",
                   "PLATFORM", "SIZE", "OFFICIAL", "INSTALLED", "PATH");
    for (size_t i = 0; i < n; i++) {
        const struct cdm_install_info *in = &all[i];
        struct usage_run run = usage_of(usage, usage_count, in->id);
        const bool *gone = all_gone + (run.first - usage);
        if (cli->json) {
            json_object_begin(&j);
            cli_json_install(&j, in);
            print_projects_json(&j, run, gone);
            json_object_end(&j);
        } else {
            char size[32], when[32];
            format_size(size, sizeof(size), in->size);
            cli_format_time(in->installed_at, when, sizeof(when));
            when[10] = '\0'; /* the date is enough in a table */
            cli_printf("%-22s %-12s %-5d %-15s %10s %-8s %-10s %s%s%s%s%s\n", in->id, in->version,
                       in->cuda, in->platform, size, in->official ? "yes" : "no", when, in->path,
                       in->upstream ? " (upstream, read only)" : "", in->state ? " (" : "",
                       in->state ? cdm_install_state_name(in->state) : "", in->state ? ")" : "");
            for (size_t k = 0; k < run.count; k++)
                cli_printf("    used by %s%s\n", run.first[k].project, gone[k] ? " (gone)" : "");
        }
    }
    free(all_gone);
    if (cli->json) {
        json_array_end(&j);
        json_print(&j, stdout);
    }
    json_free(&j);
    cdm_usage_free(usage, usage_count);
    free(all);
    return rc;
}

const struct cli_command cli_cmd_list = {
    .name = "list",
    .needs = CLI_NEEDS_STORE_READ,
    .run = run_list,
    .summary = "list installed versions and the projects using each",
};
