/* cdm list: the installs and the projects using each. */
#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

static void print_projects_json(struct json *j, char **projects)
{
    json_key(j, "projects");
    json_array_begin(j);
    for (char **p = projects; p && *p; p++)
        json_string(j, *p);
    json_array_end(j);
    /* Recorded projects whose folder is gone; 'cdm gc' drops them. */
    json_key(j, "projects_gone");
    json_array_begin(j);
    for (char **p = projects; p && *p; p++)
        if (cdm_project_gone(*p))
            json_string(j, *p);
    json_array_end(j);
}

static int run_list(struct cli *cli, const struct cli_args *args)
{
    (void)args;
    int rc = EXIT_OK;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    if (cdm_list(ctx, &all, &n) != CDM_OK)
        return cli_fail(cli);
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
    for (size_t i = 0; i < n && rc == EXIT_OK; i++) {
        const struct cdm_install_info *in = &all[i];
        char **projects = NULL;
        if (cdm_projects_using(ctx, in->id, &projects) != CDM_OK) {
            rc = cli_fail(cli);
            break;
        }
        if (cli->json) {
            json_object_begin(&j);
            cli_json_install(&j, in);
            print_projects_json(&j, projects);
            json_object_end(&j);
        } else {
            char size[32], when[32];
            format_size(size, sizeof(size), in->size);
            cli_format_time(in->installed_at, when, sizeof(when));
            when[10] = '\0'; /* the date is enough in a table */
            cli_printf("%-22s %-12s %-5d %-15s %10s %-8s %-10s %s%s%s%s\n", in->id, in->version,
                       in->cuda, in->platform, size, in->official ? "yes" : "no", when, in->path,
                       in->state ? " (" : "", in->state ? cdm_install_state_name(in->state) : "",
                       in->state ? ")" : "");
            for (char **p = projects; p && *p; p++)
                cli_printf("    used by %s%s\n", *p, cdm_project_gone(*p) ? " (gone)" : "");
        }
        cdm_strv_free(projects);
    }
    if (cli->json && rc == EXIT_OK) {
        json_array_end(&j);
        json_print(&j, stdout);
    }
    json_free(&j); /* a failure leaves nothing half-written on stdout */
    free(all);
    return rc;
}

const struct cli_command cli_cmd_list = {
    .name = "list",
    .run = run_list,
    .summary = "list installed versions and the projects using each",
};
