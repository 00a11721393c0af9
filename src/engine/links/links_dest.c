/* Where a link change points, and the one install per cuDNN major a project keeps. */
#include "links_dest.h"
#include "upstream.h"
#include "compat.h"
#include "db.h"
#include "sources.h"
#include "store_paths.h"
#include "version.h"
#include "view.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

void dest_free(struct dest *d)
{
    free(d->path);
    free(d->view);
}

void dest_bin_dir(const struct dest *d, char *out, size_t size)
{
    if (!d->in)
        snprintf(out, size, "%s", "");
    else if (d->view)
        snprintf(out, size, "%s", view_dirs(d->path, fs_platform_is_windows(d->in->platform)).bin);
    else
        snprintf(out, size, "%s", d->in->bin_dir);
}

int link_installed(cdm_ctx *ctx, const char *id, const char *why, struct cdm_install_info *in)
{
    if (db_install_find(ctx, id, in) != CDM_OK || in->state != CDM_INSTALL_OK) {
        cdm_error_set(ctx, CDM_ENOTFOUND, "%s: %s was removed since; run 'cdm install %s' first",
                      why, id, id);
        sources_hint(ctx, id);
        return CDM_ENOTFOUND;
    }
    if (fs_kind(in->path) != FS_DIR)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "%s: the store folder '%s' is missing; install %s again", why,
                             in->path, id);
    return CDM_OK;
}

/* The view called name, made (rc: how that went), as d's destination; name is d's then. */
static int view_dest(cdm_ctx *ctx, char *name, int rc, struct dest *d)
{
    if (rc) {
        free(name);
        return rc;
    }
    d->view = name;
    d->path = store_view_path(ctx, name);
    return CDM_OK;
}

static int pair_dest(cdm_ctx *ctx, const struct cdm_install_info *in,
                     const struct cdm_install_info *also, const char *view, struct dest *d)
{
    char *name = view && *view ? xstrdup(view) : pair_view_name(in->id, also->id);
    return view_dest(ctx, name, pair_view_ensure(ctx, in, also, name), d);
}

/* A view this system cannot make (Windows without hard links or symbolic links) leaves the
 * link leading to the install, as without a toolkit, with a warning; the toolkit stays
 * recorded, so the doctor can say why. */
int make_dest(cdm_ctx *ctx, const struct cdm_install_info *in, const struct cdm_install_info *also,
              const struct cdm_toolkit *tk, const char *view, struct dest *d)
{
    memset(d, 0, sizeof(*d));
    d->in = in;
    d->tk = *tk;
    if (also && *also->id)
        return pair_dest(ctx, in, also, view, d);
    if (!*tk->version) {
        d->path = xstrdup(in->path);
        return CDM_OK;
    }
    char *name = view && *view ? xstrdup(view) : view_name(in->id, tk->version, tk->real);
    int rc = view_ensure(ctx, in, tk->real, name);
    if (rc == CDM_EUNSUPPORTED) {
        cdm_warn(ctx, "the link leads to %s alone, without the CUDA toolkit: %s", in->id,
                 cdm_error_message(ctx));
        free(name);
        d->path = xstrdup(in->path);
        return CDM_OK;
    }
    return view_dest(ctx, name, rc, d);
}

void dry_dest(cdm_ctx *ctx, const struct cdm_install_info *in, const struct cdm_install_info *also,
              const struct cdm_toolkit *tk, struct dest *d)
{
    d->in = in;
    d->tk = *tk;
    d->view =
        *also->id ? pair_view_name(in->id, also->id) : view_name(in->id, tk->version, tk->real);
    d->path = store_view_path(ctx, d->view);
}

int pair_settle(cdm_ctx *ctx, const char *project, const struct cdm_generation *cur, bool want_also,
                bool only, struct cdm_install_info *in, struct cdm_install_info *also)
{
    memset(also, 0, sizeof(*also));
    char second[64] = "";
    bool paired = cur && pair_view_also(cur->view, second, sizeof(second));
    int major = atoi(in->version);
    struct cdm_install_info now;
    char *why = xasprintf("cannot link '%s'", project);
    int rc = CDM_OK;
    if (want_also && (!cur || !*cur->install_id))
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "%s to %s beside another cuDNN: it links none yet; link the first "
                           "('cdm link %s VERSION')",
                           why, in->id, project);
    else if (want_also && !(rc = link_installed(ctx, cur->install_id, why, &now))) {
        if (atoi(now.version) == major)
            rc = cdm_error_set(ctx, CDM_EMISMATCH,
                               "%s to %s with --also: it links %s, of the same cuDNN major %d; "
                               "--also adds another major (a switch within one is 'cdm link "
                               "%s %s')",
                               why, in->id, now.id, major, project, in->version);
        *also = *in;
        *in = now;
    } else if (paired && !only && !(rc = link_installed(ctx, second, why, also)) &&
               atoi(also->version) == major &&
               !(rc = link_installed(ctx, cur->install_id, why, &now))) {
        /* a switch within the second major: the first stays as it is */
        *also = *in;
        *in = now;
    }
    free(why);
    return rc;
}

int generation_also(cdm_ctx *ctx, const char *project, long long number,
                    const struct cdm_generation *g, struct cdm_install_info *also)
{
    memset(also, 0, sizeof(*also));
    char second[64];
    if (!g->install_id[0] || !pair_view_also(g->view, second, sizeof(second)))
        return CDM_OK;
    char *why = xasprintf("cannot roll back '%s' to generation %lld", project, number);
    int rc = link_installed(ctx, second, why, also);
    free(why);
    return rc;
}

/* The toolkit a link is to use: given (--toolkit: a version or a folder; "none": none),
 * else the one the project's current generation recorded. tk->version "" for none. */
int choose_toolkit(cdm_ctx *ctx, const char *project, const char *given,
                   const struct cdm_generation *cur, struct cdm_toolkit *tk)
{
    memset(tk, 0, sizeof(*tk));
    if (given && !strcmp(given, "none"))
        return CDM_OK;
    const char *spec = given ? given : cur && *cur->toolkit_path ? cur->toolkit_path : NULL;
    if (!spec)
        return CDM_OK;
    int rc = toolkit_resolve(ctx, spec, tk);
    if (rc && !given) {
        cdm_error_wrap(ctx, rc, "the CUDA toolkit recorded with '%s' cannot be used", project);
        rc = cdm_error_append(ctx, rc, "; pass --toolkit with another, or --toolkit none");
    }
    return rc;
}

/* The pair must be in the compatibility tables (compat.h), unless force: then a warning. */
int check_pair(cdm_ctx *ctx, const char *project, const struct cdm_install_info *in,
               const struct cdm_toolkit *tk, bool force)
{
    char why[256];
    enum compat_verdict verdict =
        compat_install_toolkit(in->version, in->cuda, tk->version, why, sizeof(why));
    if (verdict == COMPAT_WARN)
        cdm_warn(ctx, "%s", why);
    if (verdict != COMPAT_FAIL)
        return CDM_OK;
    if (force) {
        cdm_warn(ctx, "linking anyway (--force): %s", why);
        return CDM_OK;
    }
    return cdm_error_set(ctx, CDM_EMISMATCH,
                         "cannot link '%s' to %s with the CUDA %s toolkit '%s': %s; link a "
                         "version built for it, give another --toolkit, or pass --force",
                         project, in->id, tk->version, tk->path, why);
}
