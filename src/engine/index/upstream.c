/* Chained stores: the upstreams, read only. See upstream.h. */
#include "upstream.h"
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

static const char *upstream_dir(const cdm_ctx *ctx, size_t n)
{
    return ctx->config.upstreams[n];
}

/* A store's context with no configuration of its own, its index opened read-only. */
static int open_store(cdm_ctx *ctx, const char *dir, cdm_ctx **out)
{
    struct cdm_options options = ctx->options;
    options.root = dir;
    options.config_path = fs_host_is_windows() ? "NUL" : "/dev/null";
    int rc = cdm_ctx_new(out, &options);
    char *index = rc ? NULL : store_index_path(*out);
    if (!rc && fs_kind(index) != FS_FILE)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "the upstream store '%s' ([store] upstream) is not there%s", dir,
                           fs_kind(dir) == FS_DIR ? " (the folder holds no cdm store)"
                                                  : " (is its file system mounted?)");
    /* immutable: SQLite takes no lock and writes nothing there, not even the -shm of a
     * write-ahead log (mode=ro alone updates it where the folder can be written) */
    else if (!rc && (rc = db_open(*out, index, DB_IMMUTABLE)))
        cdm_error_set(ctx, rc, "the upstream store '%s': %s", dir, cdm_error_message(*out));
    else if (rc)
        cdm_error_set(ctx, rc, "%s", cdm_error_message(*out));
    free(index);
    return rc;
}

int upstream_open(cdm_ctx *ctx, size_t n, cdm_ctx **out)
{
    *out = NULL;
    if (n >= ctx->config.upstream_count)
        return CDM_ENOTFOUND;
    if (!ctx->upstreams)
        ctx->upstreams = xcalloc(ctx->config.upstream_count, sizeof(*ctx->upstreams));
    if (ctx->upstreams[n]) {
        *out = ctx->upstreams[n];
        return CDM_OK;
    }
    cdm_ctx *u = NULL;
    int rc = open_store(ctx, upstream_dir(ctx, n), &u);
    if (rc) {
        cdm_ctx_free(u);
        return rc;
    }
    *out = ctx->upstreams[n] = u;
    return CDM_OK;
}

int upstream_of_path(const cdm_ctx *ctx, const char *path)
{
    for (size_t i = 0; i < ctx->config.upstream_count; i++)
        if (path_within(path, upstream_dir(ctx, i)))
            return (int)i + 1;
    return 0;
}

int db_install_find(cdm_ctx *ctx, const char *id, struct cdm_install_info *out)
{
    int rc = db_install_get(ctx, id, out);
    for (size_t i = 0; rc == CDM_ENOTFOUND && i < ctx->config.upstream_count; i++) {
        cdm_ctx *u;
        struct saved_error none = error_save(ctx);
        if (upstream_open(ctx, i, &u) != CDM_OK) {
            error_restore(ctx, &none); /* a missing upstream: not found there */
            continue;
        }
        free(none.message);
        rc = db_install_get(u, id, out);
        if (!rc)
            out->upstream = (int)i + 1;
    }
    return rc;
}

char *upstream_install_path(cdm_ctx *ctx, const char *id)
{
    struct cdm_install_info in;
    struct saved_error none = error_save(ctx);
    if (db_install_find(ctx, id, &in) == CDM_OK && in.upstream) {
        free(none.message);
        return xstrdup(in.path);
    }
    error_restore(ctx, &none);
    return store_install_path(ctx, id);
}

static bool listed(const struct cdm_install_info *all, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(all[i].id, id))
            return true;
    return false;
}

void upstream_add_installs(cdm_ctx *ctx, struct cdm_install_info **all, size_t *count)
{
    for (size_t i = 0; i < ctx->config.upstream_count; i++) {
        cdm_ctx *u;
        struct cdm_install_info *theirs = NULL;
        size_t n = 0;
        if (upstream_open(ctx, i, &u) != CDM_OK || db_install_list(u, &theirs, &n) != CDM_OK) {
            cdm_warn(ctx, "%s", cdm_error_message(u ? u : ctx));
            continue;
        }
        *all = xrealloc(*all, (*count + n + 1) * sizeof(**all));
        for (size_t k = 0; k < n; k++) {
            if (listed(*all, *count, theirs[k].id))
                continue; /* this store's own, or a nearer upstream's, comes first */
            theirs[k].upstream = (int)i + 1;
            (*all)[(*count)++] = theirs[k];
        }
        free(theirs);
    }
}

int upstream_owner(cdm_ctx *ctx, const struct cdm_install_info *in, cdm_ctx **out)
{
    *out = ctx;
    return in->upstream ? upstream_open(ctx, (size_t)in->upstream - 1, out) : CDM_OK;
}

int upstream_refuse(cdm_ctx *ctx, const struct cdm_install_info *in, const char *what)
{
    if (!in->upstream)
        return CDM_OK;
    return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                         "cannot %s %s: it lives in the upstream store '%s' ([store] "
                         "upstream), which cdm only reads; its owner changes it there",
                         what, in->id, upstream_dir(ctx, (size_t)in->upstream - 1));
}
