/* A zip's headers had ahead of its download: see download_ahead.h. */
#include "download_ahead.h"
#include "platform/thread.h"

#include <stdlib.h>
#include <string.h>

#define AHEAD_STEP (64u << 10) /* a request's bytes: a directory or a few headers at once */
#define AHEAD_MAX  (64u << 20) /* past it, the readers wait for the download */

struct piece {
    uint64_t offset;
    size_t len;
    unsigned char *bytes;
};

struct download_ahead {
    struct monitor *monitor;  /* the pieces, read from any thread */
    struct monitor *fetching; /* one request at a time */
    struct net net;
    struct error_sink sink; /* the requests' errors, dropped */
    const volatile sig_atomic_t *stop;
    char *url;
    uint64_t size;
    /* in the monitor */
    struct piece *pieces;
    size_t count, cap;
    uint64_t bytes;
    bool refused; /* the server answered a range otherwise: ask no more */
};

struct download_ahead *download_ahead_new(cdm_ctx *ctx, const struct net *net, const char *url,
                                          uint64_t size)
{
    struct download_ahead *a = xcalloc(1, sizeof(*a));
    a->monitor = monitor_new();
    a->fetching = monitor_new();
    a->stop = &ctx->interrupted;
    error_sink_init(&a->sink, a->stop);
    a->net = *net;
    a->net.http = NULL; /* a session of its own */
    a->net.ctx = error_sink_ctx(&a->sink);
    a->net.retries = 0; /* a failed request costs nothing: the download brings the bytes */
    a->url = xstrdup(url);
    a->size = size;
    return a;
}

/* In the monitor: the bytes at offset from the piece that holds it. */
static size_t copy_held(struct download_ahead *a, uint64_t offset, void *buf, size_t n)
{
    for (size_t i = 0; i < a->count; i++) {
        const struct piece *p = &a->pieces[i];
        if (offset < p->offset || offset >= p->offset + p->len)
            continue;
        size_t from = (size_t)(offset - p->offset), k = p->len - from;
        if (k > n)
            k = n;
        memcpy(buf, p->bytes + from, k);
        return k;
    }
    return 0;
}

/* One request's state. */
struct asked {
    struct download_ahead *a;
    struct piece piece;
    size_t want;
};

static int asked_head(void *arg, const struct http_head *h)
{
    struct asked *q = arg;
    if (h->status == 206 && h->has_range && h->range_start == q->piece.offset)
        return CDM_OK;
    monitor_enter(q->a->monitor);
    q->a->refused = true;
    monitor_leave(q->a->monitor);
    return cdm_error_set(q->a->net.ctx, CDM_ENETWORK, "the server does not answer ranges");
}

static int asked_body(void *arg, const void *data, size_t n)
{
    struct asked *q = arg;
    if (*q->a->stop)
        return cdm_error_set(q->a->net.ctx, CDM_EIO, "interrupted");
    size_t k = q->want - q->piece.len < n ? q->want - q->piece.len : n;
    memcpy(q->piece.bytes + q->piece.len, data, k);
    q->piece.len += k;
    /* a server that sends past the range's end is stopped there */
    return k < n ? cdm_error_set(q->a->net.ctx, CDM_ENETWORK, "more than asked") : CDM_OK;
}

static uint64_t asked_kept(void *arg)
{
    struct asked *q = arg;
    return q->piece.offset + q->piece.len; /* a try after a cut goes on from there */
}

/* Ask for AHEAD_STEP bytes from offset; keep what came. */
static void fetch_piece(struct download_ahead *a, uint64_t offset)
{
    struct asked q = {a, {offset, 0, NULL}, AHEAD_STEP};
    if (q.want > a->size - offset)
        q.want = (size_t)(a->size - offset);
    q.piece.bytes = xmalloc(q.want);
    struct net_sink sink = {asked_kept, NULL, asked_head,         asked_body,
                            &q,         NULL, offset + q.want - 1};
    net_get(&a->net, a->url, &sink);
    error_sink_free(&a->sink);
    error_sink_init(&a->sink, a->stop);
    monitor_enter(a->monitor);
    if (q.piece.len && !a->refused) {
        if (a->count == a->cap) {
            a->cap = a->cap ? a->cap * 2 : 16;
            a->pieces = xrealloc(a->pieces, a->cap * sizeof(*a->pieces));
        }
        a->pieces[a->count++] = q.piece;
        a->bytes += q.piece.len;
        q.piece.bytes = NULL;
    }
    monitor_leave(a->monitor);
    free(q.piece.bytes);
}

size_t download_ahead_copy(struct download_ahead *a, uint64_t offset, void *buf, size_t n,
                           bool fetch)
{
    if (offset >= a->size)
        return 0;
    monitor_enter(a->monitor);
    size_t k = copy_held(a, offset, buf, n);
    bool ask = fetch && !k && !a->refused && a->bytes < AHEAD_MAX && !*a->stop;
    monitor_leave(a->monitor);
    if (!ask)
        return k;
    monitor_enter(a->fetching);
    monitor_enter(a->monitor);
    k = copy_held(a, offset, buf, n); /* another reader may have had it meanwhile */
    monitor_leave(a->monitor);
    if (!k) {
        fetch_piece(a, offset);
        monitor_enter(a->monitor);
        k = copy_held(a, offset, buf, n);
        monitor_leave(a->monitor);
    }
    monitor_leave(a->fetching);
    return k;
}

bool download_ahead_agrees(cdm_ctx *ctx, struct download_ahead *a, struct fs_partial *p)
{
    unsigned char *there = xmalloc(AHEAD_STEP);
    bool same = true;
    for (size_t i = 0; i < a->count && same; i++) {
        const struct piece *q = &a->pieces[i];
        for (size_t at = 0; at < q->len && same;) {
            long long n = fs_partial_read(ctx, p, q->offset + at, there, q->len - at);
            same = n > 0 && !memcmp(there, q->bytes + at, (size_t)n);
            at += n > 0 ? (size_t)n : 0;
        }
    }
    free(there);
    return same;
}

void download_ahead_free(struct download_ahead *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->count; i++)
        free(a->pieces[i].bytes);
    free(a->pieces);
    net_close(&a->net);
    error_sink_free(&a->sink);
    monitor_free(a->monitor);
    monitor_free(a->fetching);
    free(a->url);
    free(a);
}
