/*
 * cdm doctor: layered checks of why a project's cuDNN does or does not load. This file
 * chooses what to examine and runs the layers in the order of the table below; each layer
 * is a file of its own, and the report they fill is doctor_report.c's (doctor.h).
 */
#include "cudnn_lib.h"
#include "db.h"
#include "doctor.h"
#include "store.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

/* The layers, in the order a user reads the report: each one may use what the ones
 * before it found (the library layer's loaded library, the install's file list).
 * How to add one: a doctor_<name>.c of its checks (doctor.h: a layer is a name and a list
 * of check functions, each adding its findings with doctor_add, a fix for every warning or
 * failure), its row here at the place its findings read best, and a scenario in
 * tests/cli/doctor.sh that sees each finding fail first. */
static const struct doctor_layer *const layers[] = {
    &doctor_store_layer,  &doctor_library_layer, &doctor_deps_layer, &doctor_shadow_layer,
    &doctor_driver_layer, &doctor_machine_layer, &doctor_host_layer, &doctor_same_layer,
    &doctor_python_layer, &doctor_run_layer,
};

static int choose_install(struct doctor *d, const struct cdm_doctor_request *req)
{
    if (req->spec) {
        int rc = cdm_resolve(d->ctx, req->spec, req->cuda, &d->install);
        if (rc)
            return rc;
        d->have_install = true;
    } else if (d->have_project) {
        d->have_install = doctor_installed(d, d->project.linked_id, &d->install) ||
                          doctor_installed(d, d->project.pinned_id, &d->install);
    }
    if (!d->have_install)
        return CDM_OK;
    struct version v;
    version_parse(d->install.version, &v);
    d->major = v.part[0];
    d->minor = v.part[1];
    d->patch = v.part[2];
    d->native = !strcmp(d->install.platform, cdm_host_platform());
    d->windows = fs_platform_is_windows(d->install.platform);
    d->lib_dir = path_join(d->install.path, d->windows ? d->install.bin_dir : d->install.lib_dir);
    char *file = cudnn_lib_name(d->windows, d->major);
    d->main_lib = path_join(d->lib_dir, file);
    free(file);
    return CDM_OK;
}

int cdm_doctor(cdm_ctx *ctx, const struct cdm_doctor_request *req, struct cdm_doctor_report *report)
{
    memset(report, 0, sizeof(*report));
    struct doctor *d = xcalloc(1, sizeof(*d));
    d->ctx = ctx;
    d->report = report;
    d->req = req;
    char *db = store_index_path(ctx);
    d->store_exists = fs_kind(db) == FS_FILE;
    free(db);
    int rc = store_open(ctx, STORE_READ, 0);
    if (!rc && req->project)
        rc = cdm_project_open(ctx, req->project, &d->project);
    if (!rc && req->project)
        d->have_project = true;
    else if (!rc)
        d->have_project = cdm_project_find(ctx, NULL, &d->project) == CDM_OK;
    if (!rc)
        rc = choose_install(d, req);
    if (!rc) {
        if (d->have_project)
            COPY_STR_ARRAY(report->project, d->project.path);
        if (d->have_install) {
            COPY_STR_ARRAY(report->install_id, d->install.id);
            d->libs = cudnn_libs_in(ctx, d->lib_dir, d->windows, d->major);
        }
        for (size_t i = 0; i < CDM_ARRAY_LEN(layers); i++)
            for (size_t c = 0; c < layers[i]->count; c++)
                layers[i]->checks[c](d);
    }
    strv_free(d->libs);
    toolkit_free(&d->toolkit);
    free(d->lib_dir);
    free(d->main_lib);
    doctor_env_free(d->env);
    free(d);
    if (rc)
        cdm_doctor_report_free(report);
    return rc;
}
