/* The context: options, configuration, the store root (its last error is base/error.c's). */
#include "db.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

/* malloc'd; NULL when unset or empty */
static char *nonempty_env(const char *name)
{
    char *v = fs_getenv(name);
    if (v && !*v) {
        free(v);
        v = NULL;
    }
    return v;
}

int cdm_ctx_new(cdm_ctx **out, const struct cdm_options *options)
{
    cdm_ctx *ctx = xcalloc(1, sizeof(*ctx));
    *out = ctx;
    if (options)
        ctx->options = *options;
    ctx->err.warn = ctx->options.warn;
    ctx->err.warn_arg = ctx->options.callback_arg;
    ctx->err.note = ctx->options.note;
    char *env_config = ctx->options.config_path ? NULL : nonempty_env("CDM_CONFIG");
    int rc = config_load(ctx, &ctx->config,
                         ctx->options.config_path ? ctx->options.config_path : env_config);
    free(env_config);
    if (rc)
        return rc;
    fs_set_retry_ms(ctx->config.windows_retry_seconds * 1000);
    char *env_root = ctx->options.root ? NULL : nonempty_env("CDM_ROOT");
    ctx->root =
        store_root_choose(ctx->options.root ? ctx->options.root : env_root, ctx->config.root);
    free(env_root);
    char *env_state = nonempty_env("CDM_STATE");
    char *state = env_state ? env_state : fs_default_state();
    ctx->state_path = fs_absolute(state);
    free(state);
    return CDM_OK;
}

void cdm_ctx_free(cdm_ctx *ctx)
{
    if (!ctx)
        return;
    db_rollback(ctx);
    db_close(ctx);
    /* the upstreams' contexts (upstream.c opens them on first use) */
    for (size_t i = 0; ctx->upstreams && i < ctx->config.upstream_count; i++)
        cdm_ctx_free(ctx->upstreams[i]);
    free(ctx->upstreams);
    fs_unlock(ctx->state_lock);
    fs_unlock(ctx->lock);
    config_free(&ctx->config);
    free(ctx->root);
    free(ctx->state_path);
    error_state_free(&ctx->err);
    free(ctx);
}

void cdm_interrupt(cdm_ctx *ctx)
{
    ctx->interrupted = 1;
}

bool cdm_interrupted(const cdm_ctx *ctx)
{
    return ctx->interrupted != 0;
}

const char *cdm_root(const cdm_ctx *ctx)
{
    return ctx->root;
}

const char *cdm_link_name(const cdm_ctx *ctx)
{
    return ctx->config.link_name ? ctx->config.link_name : "cuda_link";
}

const char *cdm_host_platform(void)
{
    return fs_host_platform();
}

void cdm_strv_free(char **v)
{
    strv_free(v);
}
