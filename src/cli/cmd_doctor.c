#include "cli.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
    const char *project = NULL, *spec = NULL, *cuda_text = NULL;
    const struct cli_option options[] = {
        {"--cudnn", &spec, NULL}, {"--cuda", &cuda_text, NULL}, {NULL, NULL, NULL}};
    int rc = cli_parse(cli, argc, argv, options, &project, 0, 1);
    int cuda = 0;
    if (rc || (rc = cli_parse_cuda(cli, cuda_text, &cuda)))
        return rc;
    cdm_ctx *ctx = cli_ctx(cli);
    if (!ctx)
        return EXIT_FAIL;
    struct cdm_doctor_request req = {project, spec, cuda};
    struct cdm_doctor_report r;
    if (cdm_doctor(ctx, &req, &r) != CDM_OK)
        return cli_fail(cli);
    bool ok = true;
    for (size_t i = 0; i < r.count; i++)
        ok = ok && r.checks[i].status != CDM_CHECK_FAIL;
    if (cli->json) {
        struct json j;
        json_init(&j, stdout);
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
        json_object_end(&j);
    } else {
        if (*r.project || *r.install_id)
            printf("project %s, cuDNN %s\n", *r.project ? r.project : "(none)",
                   *r.install_id ? r.install_id : "(none)");
        for (size_t i = 0; i < r.count; i++) {
            const struct cdm_check *c = &r.checks[i];
            printf("%-5s %-24s %s\n", cdm_check_status_name(c->status), c->name, c->detail);
            if (c->fix)
                printf("      %-24s fix: %s\n", "", c->fix);
        }
        if (!ok)
            fprintf(stderr, "cdm: doctor found problems; see the fixes above\n");
    }
    cdm_doctor_report_free(&r);
    return ok ? EXIT_OK : EXIT_FAIL;
}
