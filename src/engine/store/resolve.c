/* Finding installs: the list, a version spec resolved to one install, who uses one. */
#include "db.h"
#include "store.h"
#include "upstream.h"
#include "version.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>

const char *cdm_install_state_name(enum cdm_install_state state)
{
    static const char *const names[] = {
        [CDM_INSTALL_OK] = "ok",
        [CDM_INSTALL_INSTALLING] = "installing",
        [CDM_INSTALL_REMOVING] = "removing",
        [CDM_INSTALL_MISSING] = "missing",
    };
    return (size_t)state < CDM_ARRAY_LEN(names) ? names[state] : "?";
}

int cdm_list(cdm_ctx *ctx, struct cdm_install_info **out, size_t *count)
{
    int rc = store_open(ctx, STORE_SETTLED, RECOVER_INSTALLS);
    if (rc || (rc = db_install_list(ctx, out, count)))
        return rc;
    upstream_add_installs(ctx, out, count); /* below this store's own, read only */
    /* Which folders are there, asked of all at once (one read of the store's folder). */
    const char **paths = xmalloc((*count ? *count : 1) * sizeof(*paths));
    enum fs_kind *kinds = xmalloc((*count ? *count : 1) * sizeof(*kinds));
    for (size_t i = 0; i < *count; i++)
        paths[i] = (*out)[i].path;
    fs_kinds(paths, *count, kinds);
    for (size_t i = 0; i < *count; i++)
        if (kinds[i] != FS_DIR && (*out)[i].upstream) /* an upstream gone: nothing to ask */
            (*out)[i].state = CDM_INSTALL_MISSING;
        else if (kinds[i] != FS_DIR) /* the rare case: store_install_state asks again and why */
            store_install_state(ctx, &(*out)[i]);
    free(kinds);
    free(paths);
    return CDM_OK;
}

bool store_spec_interrupted(cdm_ctx *ctx, const char *spec_text, int cuda)
{
    struct version_spec spec;
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    bool found = false;
    /* the common case, nothing interrupted, costs no read of every install */
    if (!store_installs_interrupted(ctx) || !version_spec_parse(spec_text, &spec) ||
        db_install_list(ctx, &all, &n))
        return false;
    if (cuda)
        spec.cuda = cuda;
    for (size_t i = 0; i < n && !found; i++) {
        struct version v;
        if (!version_parse(all[i].version, &v) || !version_spec_matches(&spec, &v, all[i].cuda))
            continue;
        store_install_state(ctx, &all[i]);
        found = all[i].state == CDM_INSTALL_INSTALLING || all[i].state == CDM_INSTALL_REMOVING;
    }
    free(all);
    return found;
}

int cdm_projects_using(cdm_ctx *ctx, const char *install_id, char ***projects)
{
    int rc = store_open(ctx, STORE_READ, 0);
    return rc ? rc : db_projects_using(ctx, install_id, projects);
}

int cdm_usage_list(cdm_ctx *ctx, struct cdm_usage **out, size_t *count)
{
    int rc = store_open(ctx, STORE_READ, 0);
    return rc ? rc : db_usage_list(ctx, out, count);
}

void cdm_usage_free(struct cdm_usage *v, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(v[i].install_id);
        free(v[i].project);
    }
    free(v);
}

/* A spec that matches no install but is a typo away from one ("9.1.0.07" for 9.1.0.70):
 * the error names the nearest version or id. */
static void suggest_install(cdm_ctx *ctx, const char *spec, const struct cdm_install_info *all,
                            size_t n)
{
    const char **names = xmalloc((2 * n + 1) * sizeof(*names));
    for (size_t i = 0; i < n; i++) {
        names[2 * i] = all[i].version;
        names[2 * i + 1] = all[i].id;
    }
    const char *near = str_closest(spec, names, 2 * n);
    if (near)
        cdm_error_set(ctx, cdm_error_code(ctx), "%s; did you mean %s?", cdm_error_message(ctx),
                      near);
    free(names);
}

int cdm_resolve(cdm_ctx *ctx, const char *spec_text, int cuda, struct cdm_install_info *out)
{
    struct version_spec spec;
    if (!version_spec_parse(spec_text, &spec))
        return cdm_error_set(ctx, CDM_EINVAL,
                             "'%s' is not a version; give one such as 8.8, 8.8.0.121, "
                             "8.8.0.121-cuda11 or latest",
                             spec_text);
    if (cuda && spec.cuda && cuda != spec.cuda)
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' names cuda%d but --cuda says %d", spec_text,
                             spec.cuda, cuda);
    if (cuda)
        spec.cuda = cuda;
    const struct version *v = &spec.version;
    if (!spec.latest && v->count == 4 && spec.cuda) {
        /* A whole id names at most one install: read just its row (cdm link with thousands
         * of installs), and leave the messages for a miss to the search below. */
        char version[32], id[64];
        version_format(v, version, sizeof(version));
        install_id_format(version, spec.cuda, id, sizeof(id));
        int rc = store_open(ctx, STORE_READ, 0);
        if (!rc)
            rc = db_install_find(ctx, id, out);
        if (rc != CDM_ENOTFOUND)
            return rc;
    }
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    int rc = cdm_list(ctx, &all, &n);
    if (rc)
        return rc;
    /* The newest matching version wins; its CUDA variants must be told apart. */
    const struct cdm_install_info *best = NULL;
    struct version_pick pick = VERSION_PICK_INIT;
    for (size_t i = 0; i < n; i++) {
        struct version v;
        if (version_parse(all[i].version, &v) && version_spec_matches(&spec, &v, all[i].cuda) &&
            version_pick_offer(&pick, &v, all[i].id))
            best = &all[i];
    }
    if (!best && spec.cuda)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cuDNN %s for CUDA %d is not installed; run 'cdm install %s --cuda "
                           "%d' (see 'cdm list')",
                           spec_text, spec.cuda, spec_text, spec.cuda);
    else if (!best)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cuDNN %s is not installed; run 'cdm install %s' (see 'cdm list')",
                           spec_text, spec_text);
    else if (pick.count > 1)
        rc = cdm_error_set(ctx, CDM_EAMBIGUOUS,
                           "'%s' matches several installs (%s); choose one with --cuda N",
                           spec_text, sb_str(&pick.names));
    else
        *out = *best;
    if (!best)
        suggest_install(ctx, spec_text, all, n);
    version_pick_free(&pick);
    free(all);
    return rc;
}
