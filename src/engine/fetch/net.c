/* GETs with retries, and the words for what went wrong: see net.h. */
#include "net.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void net_init(struct net *net, cdm_ctx *ctx)
{
    memset(net, 0, sizeof(*net));
    net->ctx = ctx;
    net->ca_file = ctx->config.ca_file;
    net->timeout = ctx->config.fetch_timeout;
    net->retries = ctx->config.fetch_retries;
    net->retry_wait = ctx->config.fetch_retry_wait;
    net->low_speed = ctx->config.fetch_low_speed;
    net->low_speed_time = ctx->config.fetch_low_speed_time;
    net->max_time = ctx->config.fetch_max_time;
}

void net_close(struct net *net)
{
    http_session_free(net->http);
    net->http = NULL;
}

/* The host part of a URL, for messages. */
static char *host_of(const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    return xstrndup(p, strcspn(p, "/:?#"));
}

/* Each failure in words (with the host where it says %s), and what to do about it. */
static const struct {
    enum http_failure kind;
    const char *what;
    const char *fix;
} failures[] = {
    {HTTP_DNS, "the host name '%s' does not resolve",
     "check the network and DNS, the proxy (https_proxy) or [fetch] base"},
    {HTTP_CONNECT, "cannot connect to '%s'",
     "check the network, a firewall or the proxy (https_proxy, no_proxy)"},
    {HTTP_PROXY, "the proxy failed",
     "check https_proxy and no_proxy (on Windows, the system's proxy settings)"},
    {HTTP_TLS, "the TLS connection to '%s' failed",
     "check the system clock; for a mirror with its own certificate authority set [fetch] "
     "ca_file"},
    {HTTP_TIMEOUT, "no answer from '%s' in time", "check the network, or raise [fetch] timeout"},
    {HTTP_SLOW, "the transfer from '%s' is too slow",
     "check the network, or lower [fetch] low_speed (0: no limit) or raise low_speed_time"},
    {HTTP_TOO_LONG, "the transfer from '%s' takes too long",
     "raise [fetch] max_time (0: no limit); a download goes on where it stopped when run again"},
    {HTTP_CUT, "the connection to '%s' was cut", NULL},
    {HTTP_REDIRECTS, "too many redirects, or a redirect from https to http, which cdm refuses",
     NULL},
};

static int failed(struct net *net, const char *url, const struct http_result *r)
{
    cdm_ctx *ctx = net->ctx;
    if (r->failure == HTTP_UNAVAILABLE)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot download '%s': %s; or download the archive by hand and run "
                             "'cdm install FILE'",
                             url, r->detail);
    if (r->failure == HTTP_BAD_URL)
        return cdm_error_set(ctx, CDM_ECONFIG,
                             "cannot download '%s': %s; fix [fetch] base (an https:// or "
                             "http:// URL, a file:// URL or a folder)",
                             url, r->detail);
    struct strbuf what = STRBUF_INIT;
    const char *fix = NULL;
    for (size_t i = 0; i < CDM_ARRAY_LEN(failures) && !what.len; i++) {
        if (failures[i].kind != r->failure)
            continue;
        char *host = host_of(url);
        sb_addf(&what, failures[i].what, host);
        fix = failures[i].fix;
        free(host);
    }
    if (!what.len)
        sb_add(&what, "the transfer failed");
    int rc =
        cdm_error_set(ctx, CDM_ENETWORK, "cannot download '%s': %s (%s)%s%s", url, sb_str(&what),
                      *r->detail ? r->detail : "no detail", fix ? "; " : "", fix ? fix : "");
    sb_free(&what);
    return rc;
}

int net_status_failed(struct net *net, const char *url, int status)
{
    if (status == 404 || status == 410)
        return cdm_error_set(net->ctx, CDM_ENOTFOUND, "'%s' is not there (HTTP %d)", url, status);
    if (status == 401 || status == 403)
        return cdm_error_set(net->ctx, CDM_ENETWORK,
                             "cannot download '%s': the server refuses it (HTTP %d); check "
                             "[fetch] base, or the mirror's access rules",
                             url, status);
    return cdm_error_set(net->ctx, CDM_ENETWORK,
                         "cannot download '%s': the server answered HTTP "
                         "%d; try again later, or use another [fetch] base",
                         url, status);
}

static bool transient(enum http_failure f)
{
    return f == HTTP_CONNECT || f == HTTP_TIMEOUT || f == HTTP_SLOW || f == HTTP_CUT ||
           f == HTTP_OTHER;
}

/* The sink's callbacks, with their status kept: http only learns "stop". */
struct call {
    const struct net_sink *sink;
    int rc;
};

static int call_head(void *arg, const struct http_head *head)
{
    struct call *c = arg;
    return c->sink->head ? (c->rc = c->sink->head(c->sink->arg, head)) : CDM_OK;
}

static int call_body(void *arg, const void *data, size_t n)
{
    struct call *c = arg;
    return c->rc = c->sink->body(c->sink->arg, data, n);
}

int net_get(struct net *net, const char *url, const struct net_sink *sink)
{
    cdm_ctx *ctx = net->ctx;
    struct http_result r;
    if (!net->http && !(net->http = http_session_new(&r)))
        return failed(net, url, &r);
    unsigned wait = net->retry_wait;
    for (unsigned attempt = 0;; attempt++) {
        struct call call = {sink, CDM_OK};
        struct http_request req = {
            .url = url,
            .from = sink->kept ? sink->kept(sink->arg) : 0,
            .to = sink->last,
            .accept = sink->accept,
            .headers = net->headers,
            .ca_file = net->ca_file,
            .timeout = net->timeout,
            .low_speed = net->low_speed,
            .low_speed_time = net->low_speed_time,
            .max_time = net->max_time,
            .head = call_head,
            .body = call_body,
            .arg = &call,
        };
        enum http_failure f = http_send(net->http, &req, &r);
        if (f == HTTP_STOPPED)
            return call.rc ? call.rc : cdm_error_set(ctx, CDM_ENETWORK, "download stopped");
        if (f == HTTP_OK && r.status >= 200 && r.status <= 299)
            return CDM_OK;
        if (f == HTTP_OK && r.status == 416 && req.from && sink->restart) {
            /* what we kept is not a prefix the server can continue: start again */
            int rc = sink->restart(sink->arg);
            if (rc)
                return rc;
            continue;
        }
        bool again =
            f == HTTP_OK ? r.status == 429 || (r.status >= 500 && r.status <= 599) : transient(f);
        int rc = f == HTTP_OK ? net_status_failed(net, url, r.status) : failed(net, url, &r);
        if (!again || attempt >= net->retries)
            return rc;
        cdm_note(ctx, "%s; trying again in %u s (%u of %u)", cdm_error_message(ctx), wait,
                 attempt + 1, net->retries);
        http_pause(wait);
        wait = wait ? wait * 2 : 0;
    }
}

int net_send(struct net *net, struct http_request *req, struct http_result *r)
{
    cdm_ctx *ctx = net->ctx;
    if (!net->http && !(net->http = http_session_new(r)))
        return failed(net, req->url, r);
    bool once = req->upload_size ||
                (req->method && (!strcmp(req->method, "POST") || !strcmp(req->method, "PUT")));
    req->ca_file = net->ca_file;
    req->timeout = net->timeout;
    req->low_speed = net->low_speed;
    req->low_speed_time = net->low_speed_time;
    req->max_time = net->max_time;
    if (!req->headers)
        req->headers = net->headers;
    unsigned wait = net->retry_wait;
    for (unsigned attempt = 0;; attempt++) {
        enum http_failure f = http_send(net->http, req, r);
        if (f == HTTP_OK)
            return CDM_OK;
        if (f == HTTP_STOPPED) /* a callback stopped it, its message set */
            return cdm_error_code(ctx) ? cdm_error_code(ctx)
                                       : cdm_error_set(ctx, CDM_ENETWORK, "'%s': %s", req->url,
                                                       *r->detail ? r->detail : "stopped");
        int rc = failed(net, req->url, r);
        if (once || !transient(f) || attempt >= net->retries)
            return rc;
        cdm_note(ctx, "%s; trying again in %u s (%u of %u)", cdm_error_message(ctx), wait,
                 attempt + 1, net->retries);
        http_pause(wait);
        wait = wait ? wait * 2 : 0;
    }
}

struct text_sink {
    cdm_ctx *ctx;
    struct strbuf *sb;
    const char *url, *what;
    size_t max;
};

static int text_head(void *arg, const struct http_head *head)
{
    (void)head;
    sb_reset(((struct text_sink *)arg)->sb); /* a try after a failure starts again */
    return CDM_OK;
}

static int text_body(void *arg, const void *data, size_t n)
{
    struct text_sink *t = arg;
    if (t->sb->len + n > t->max)
        return cdm_error_set(t->ctx, CDM_ENETWORK, "'%s' is larger than %zu MiB; it is no %s",
                             t->url, t->max >> 20, t->what);
    sb_addn(t->sb, data, n);
    return CDM_OK;
}

int net_get_text(struct net *net, const char *url, const char *accept, size_t max, const char *what,
                 struct strbuf *out)
{
    struct text_sink t = {net->ctx, out, url, what, max};
    struct net_sink sink = {NULL, NULL, text_head, text_body, &t, accept, 0};
    sb_reset(out);
    return net_get(net, url, &sink);
}
