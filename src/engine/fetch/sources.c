#include "sources.h"
#include "platform/app_dirs.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

struct source_match {
    char *path; /* the newest matching archive, NULL when there is none */
    int cuda;
    struct version_pick pick;
};

/* The folders looked in: [install] sources, else the user's Downloads folder, which need
 * not be there (*fallback). NULL-terminated, malloc'd (strv_free). */
static char **source_folders(const struct cdm_config *c, bool *fallback)
{
    char **dirs = xcalloc(c->source_count + 2, sizeof(char *));
    for (size_t s = 0; s < c->source_count; s++)
        dirs[s] = xstrdup(c->sources[s]);
    *fallback = !c->source_count;
    if (*fallback)
        dirs[0] = app_downloads_dir();
    return dirs;
}

/* Every source folder, in order; warn: say which cannot be read. */
static void scan(cdm_ctx *ctx, const struct version_spec *spec, const char *platform, bool warn,
                 struct source_match *m)
{
    bool fallback;
    char **dirs = source_folders(&ctx->config, &fallback);
    for (size_t s = 0; dirs[s]; s++) {
        char **names = NULL;
        if (fs_list_dir(ctx, dirs[s], &names) != CDM_OK) {
            if (warn && !fallback)
                cdm_warn(ctx, "cannot read source folder '%s', skipped", dirs[s]);
            continue;
        }
        for (char **n = names; *n; n++) {
            struct archive_name an;
            if ((!archive_name_parse(*n, &an) && !wheel_name_parse(*n, &an)) ||
                strcmp(an.platform, platform) ||
                !version_spec_matches(spec, &an.version, an.cuda_major))
                continue;
            if (m->pick.found && !version_compare(&an.version, &m->pick.version) &&
                an.cuda_major == m->cuda)
                continue; /* the same archive in two folders: the first one listed wins */
            if (version_pick_offer(&m->pick, &an.version, *n)) {
                free(m->path);
                m->path = path_join(dirs[s], *n);
                m->cuda = an.cuda_major;
            }
        }
        strv_free(names);
    }
    strv_free(dirs);
}

int sources_find(cdm_ctx *ctx, const struct version_spec *spec, const char *platform,
                 const char *spec_text, char **found)
{
    const struct cdm_config *c = &ctx->config;
    struct source_match m = {NULL, 0, VERSION_PICK_INIT};
    scan(ctx, spec, platform, true, &m);
    int rc = CDM_OK;
    if (!m.path) {
        struct strbuf where = STRBUF_INIT;
        for (size_t s = 0; s < c->source_count; s++)
            sb_addf(&where, "%s'%s'", s ? ", " : "", c->sources[s]);
        char *downloads = c->source_count ? NULL : app_downloads_dir();
        if (downloads)
            sb_addf(&where, " (none in '%s')", downloads);
        free(downloads);
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           c->source_count
                               ? "no %s archive of cuDNN %s in the source folders (%s); "
                                 "download it from NVIDIA or give the archive's path"
                               : "no %s archive of cuDNN %s to install%s: give the archive's "
                                 "path, or list folders under [install] sources in the config",
                           platform, spec_text, sb_str(&where));
        sb_free(&where);
    } else if (m.pick.count > 1) {
        rc = cdm_error_set(ctx, CDM_EAMBIGUOUS,
                           "'%s' matches several archives (%s); choose one with --cuda N",
                           spec_text, sb_str(&m.pick.names));
    } else {
        *found = m.path;
        m.path = NULL;
    }
    free(m.path);
    version_pick_free(&m.pick);
    return rc;
}

void sources_hint(cdm_ctx *ctx, const char *spec_text)
{
    struct version_spec spec;
    if (!version_spec_parse(spec_text, &spec))
        return;
    struct saved_error saved = error_save(ctx); /* the scan may set errors of its own */
    struct source_match m = {NULL, 0, VERSION_PICK_INIT};
    scan(ctx, &spec, fs_host_platform(), false, &m);
    if (m.path)
        cdm_error_set(ctx, saved.code, "%s; its archive '%s' is in [install] sources",
                      saved.message ? saved.message : "unknown error", m.path);
    else
        error_restore(ctx, &saved);
    free(saved.message);
    free(m.path);
    version_pick_free(&m.pick);
}
