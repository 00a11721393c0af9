/* Reading a project's link and history: cdm which, cdm history. */
#include "db.h"
#include "upstream.h"
#include "project.h"
#include "store.h"
#include "version.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

static int describe(cdm_ctx *ctx, struct cdm_which_info *out)
{
    struct cdm_generation cur;
    int rc = db_generation_get(ctx, out->project.path, 0, &cur);
    if (rc == CDM_OK) {
        out->generation = cur.number;
        COPY_STR_ARRAY(out->index_id, cur.install_id);
        COPY_STR_ARRAY(out->toolkit, cur.toolkit);
        COPY_STR_ARRAY(out->toolkit_path, cur.toolkit_path);
    } else if (rc != CDM_ENOTFOUND) {
        return rc;
    }
    const char *id = out->project.linked_id;
    if (*id) {
        struct cdm_install_info in;
        out->installed = db_install_find(ctx, id, &in) == CDM_OK;
        if (out->installed) {
            store_install_state(ctx, &in);
            out->install_state = in.state;
            COPY_STR_ARRAY(out->version, in.version);
        } else {
            install_id_version(id, out->version, sizeof(out->version));
        }
    }
    out->drift = !out->gone && strcmp(out->index_id, id) != 0;
    return CDM_OK;
}

int cdm_which(cdm_ctx *ctx, const char *project, struct cdm_which_info *out)
{
    memset(out, 0, sizeof(*out));
    int rc = store_open(ctx, STORE_SETTLED, RECOVER_LINKS | RECOVER_INSTALLS);
    if (rc)
        return rc;
    if (!project) {
        rc = cdm_project_find(ctx, NULL, &out->project);
    } else if (!cdm_project_gone(project)) {
        rc = cdm_project_open(ctx, project, &out->project);
    } else {
        /* The folder is gone: what the index remembers of it. */
        char *key = project_key(project);
        struct cdm_generation cur;
        rc = db_generation_get(ctx, key, 0, &cur);
        if (rc == CDM_ENOTFOUND)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "no project folder '%s': no such folder, and cdm has no record "
                               "of it",
                               project);
        if (rc == CDM_OK) {
            out->gone = true;
            COPY_STR_ARRAY(out->project.link_name, cur.link_name);
            char *link = path_join(key, cur.link_name);
            if (!(rc = copy_path(ctx, out->project.path, sizeof(out->project.path), key)))
                rc = copy_path(ctx, out->project.link_path, sizeof(out->project.link_path), link);
            free(link);
        }
        free(key);
    }
    return rc ? rc : describe(ctx, out);
}

int cdm_history(cdm_ctx *ctx, const char *project, char *path, struct cdm_generation **out,
                size_t *count)
{
    *out = NULL;
    *count = 0;
    int rc = store_open(ctx, STORE_SETTLED, RECOVER_LINKS);
    if (rc)
        return rc;
    char *key = project_key(project);
    rc = copy_path(ctx, path, 4096, key);
    if (!rc)
        rc = db_generation_list(ctx, key, out, count);
    if (!rc && *count == 0) {
        free(*out);
        *out = NULL;
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "no history for '%s': cdm never linked it; run 'cdm link %s VERSION'",
                           key, project);
    }
    free(key);
    return rc;
}
