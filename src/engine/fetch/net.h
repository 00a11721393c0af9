/*
 * GETs for [fetch]: one HTTP session, bounded retries with back-off, and every failure
 * worded for the user (what failed, on which URL, what to do).
 */
#ifndef CDM_NET_H
#define CDM_NET_H

#include "internal.h"
#include "platform/http.h"

/* The settings are copied from the configuration by net_init: after it, ctx serves for
 * errors and notes alone, and a worker's error sink may stand for it. */
struct net {
    cdm_ctx *ctx;
    struct http_session *http; /* started by the first GET */
    const char *ca_file;
    unsigned timeout, retries, retry_wait;
    unsigned low_speed, low_speed_time, max_time;
    const char *const *headers; /* more header lines for every request (a registry's token) */
};

/* Where a body goes. Each callback returns CDM_OK, or a status whose message it set: the
 * transfer then stops and net_get returns that status. */
struct net_sink {
    /* The bytes kept so far: a try after a failure asks for the rest (NULL: from 0). */
    uint64_t (*kept)(void *arg);
    /* Drop what was kept: the server refused the range (416). */
    int (*restart)(void *arg);
    int (*head)(void *arg, const struct http_head *head);
    int (*body)(void *arg, const void *data, size_t n);
    void *arg;
    const char *accept; /* the Accept header to send; NULL: the client's default */
    uint64_t last;      /* > 0: the last byte asked for (a range within the file) */
};

void net_init(struct net *net, cdm_ctx *ctx);
void net_close(struct net *net);

/* GET url into sink, trying again after a cut connection, a timeout, a refused connection,
 * 429 or 5xx, up to [fetch] retries times. CDM_ENOTFOUND for 404 and 410. */
int net_get(struct net *net, const char *url, const struct net_sink *sink);

/* One request as req says (url, method, headers, body), with net's timeouts, CA file and
 * headers: CDM_OK once a response came, whatever its status (r says it; a 2xx body went to
 * req's callbacks), else the failure worded. A GET or a HEAD is tried again as net_get's
 * are; a request with a body once only. */
int net_send(struct net *net, struct http_request *req, struct http_result *r);

/* net_get's message for an HTTP status other than 2xx. */
int net_status_failed(struct net *net, const char *url, int status);

/* GET a small text (a manifest, a listing, an index page) whole into out, as net_get does,
 * accept as the Accept header (NULL: the default); more than max bytes fails, calling it
 * no what ("manifest or listing"). */
int net_get_text(struct net *net, const char *url, const char *accept, size_t max, const char *what,
                 struct strbuf *out);

#endif
