#include "error.h"
#include "cdm.h" /* the status codes, which every room shares */

#include <stdlib.h>
#include <string.h>

/* See error.h: the context starts with its error state. */
static struct error_state *state_of(cdm_ctx *ctx)
{
    return (struct error_state *)(void *)ctx;
}

static const struct error_state *const_state_of(const cdm_ctx *ctx)
{
    return (const struct error_state *)(const void *)ctx;
}

/* cdm.h's accessors live here, beside the state they read, so that the platform's files
 * can quote an error (link_win32.c) without calling up into the engine. */
const char *cdm_error_message(const cdm_ctx *ctx)
{
    const struct error_state *e = ctx ? const_state_of(ctx) : NULL;
    return e && e->message ? e->message : "unknown error";
}

int cdm_error_code(const cdm_ctx *ctx)
{
    return ctx ? const_state_of(ctx)->code : CDM_EINVAL;
}

static int set_message(cdm_ctx *ctx, int code, struct strbuf *sb)
{
    if (!ctx) { /* a quiet call (error.h) */
        sb_free(sb);
        return code;
    }
    struct error_state *e = state_of(ctx);
    free(e->message);
    e->message = sb_detach(sb);
    e->code = code;
    return code;
}

int cdm_error_set(cdm_ctx *ctx, int code, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    return set_message(ctx, code, &sb);
}

int cdm_error_vset_why(cdm_ctx *ctx, int code, const char *why, const char *fmt, va_list ap)
{
    struct strbuf sb = STRBUF_INIT;
    sb_vaddf(&sb, fmt, ap);
    sb_addf(&sb, ": %s", why);
    return set_message(ctx, code, &sb);
}

int cdm_error_errno(cdm_ctx *ctx, int code, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cdm_error_vset_why(ctx, code, strerror(err), fmt, ap);
    va_end(ap);
    return code;
}

/* The old message is the reason; it is copied before set_message frees it. */
int cdm_error_wrap(cdm_ctx *ctx, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cdm_error_vset_why(ctx, code, cdm_error_message(ctx), fmt, ap);
    va_end(ap);
    return code;
}

int cdm_error_append(cdm_ctx *ctx, int code, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, cdm_error_message(ctx));
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    return set_message(ctx, code, &sb);
}

static void tell(void (*fn)(void *, const char *), void *arg, const char *fmt, va_list ap)
{
    if (!fn)
        return;
    struct strbuf sb = STRBUF_INIT;
    sb_vaddf(&sb, fmt, ap);
    fn(arg, sb_str(&sb));
    sb_free(&sb);
}

void cdm_warn(cdm_ctx *ctx, const char *fmt, ...)
{
    struct error_state *e = ctx ? state_of(ctx) : NULL;
    if (!e || !e->warn)
        return;
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    if (e->last_warning && !strcmp(e->last_warning, sb_str(&sb))) {
        sb_free(&sb);
        return;
    }
    e->warn(e->warn_arg, sb_str(&sb));
    free(e->last_warning);
    e->last_warning = sb_detach(&sb);
}

void cdm_note(cdm_ctx *ctx, const char *fmt, ...)
{
    if (!ctx)
        return;
    struct error_state *e = state_of(ctx);
    va_list ap;
    va_start(ap, fmt);
    tell(e->note, e->warn_arg, fmt, ap);
    va_end(ap);
}

struct saved_error error_save(const cdm_ctx *ctx)
{
    const struct error_state *e = const_state_of(ctx);
    struct saved_error s = {e->code, e->message ? xstrdup(e->message) : NULL};
    return s;
}

int error_restore(cdm_ctx *ctx, struct saved_error *saved)
{
    int code = saved->code;
    cdm_error_set(ctx, code, "%s", saved->message ? saved->message : "unknown error");
    free(saved->message);
    saved->message = NULL;
    return code;
}

void error_state_free(struct error_state *state)
{
    free(state->message);
    state->message = NULL;
    free(state->last_warning);
    state->last_warning = NULL;
}

int copy_path(cdm_ctx *ctx, char *dst, size_t size, const char *path)
{
    if (copy_str(dst, size, path))
        return CDM_OK;
    return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                         "path '%s' is too long for cdm (%zu bytes, at most %zu); use a shorter "
                         "folder for the store or the project",
                         path, strlen(path), size - 1);
}

void error_sink_init(struct error_sink *s, const volatile sig_atomic_t *stop)
{
    memset(s, 0, sizeof(*s));
    s->stop = stop;
}

cdm_ctx *error_sink_ctx(struct error_sink *s)
{
    return (cdm_ctx *)s; /* a pointer to a structure is a pointer to its first member */
}

bool error_sink_stopped(const struct error_sink *s)
{
    return s->stop && *s->stop;
}

int error_sink_pass(cdm_ctx *ctx, const struct error_sink *s, int fallback_code,
                    const char *fallback)
{
    if (s->err.message)
        return cdm_error_set(ctx, s->err.code ? s->err.code : fallback_code, "%s", s->err.message);
    return cdm_error_set(ctx, fallback_code, "%s", fallback);
}

void error_sink_free(struct error_sink *s)
{
    error_state_free(&s->err);
}
