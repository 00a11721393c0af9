/*
 * The pipe of zip_pipe.h: the calling thread reads the compressed bytes a block at a time
 * and inflates them into a ring of buffers; the taker's thread empties the ring in order.
 * A monitor guards the ring's two counts (filled, taken) and the two ends' "stop" words.
 */
#include "zip_pipe.h"
#include "inflate.h"
#include "zip_in.h"

#include <stdio.h>
#include "platform/thread.h"

#include <stdlib.h>
#include <string.h>

#define IN_BLOCK   (1u << 20)
#define OUT_BLOCK  (512u << 10)
#define RING       4
#define THREAD_MIN (8u << 20) /* smaller entries are taken on the calling thread */

struct zip_pipe {
    struct inflater *inflater;
    unsigned char *in;
    unsigned char *ring[RING];
    size_t len[RING];
    /* between the two threads, under the monitor */
    struct monitor *monitor;
    size_t filled, taken;
    bool done; /* the inflating side has filled its last buffer */
    bool taker_failed;
    const struct zip_taker *taker;
    struct error_sink taker_sink; /* the taker's errors (its stop flag is its own) */
};

struct zip_pipe *zip_pipe_new(void)
{
    struct zip_pipe *p = xcalloc(1, sizeof(*p));
    p->inflater = inflater_new();
    p->in = xmalloc(IN_BLOCK);
    for (size_t i = 0; i < RING; i++)
        p->ring[i] = xmalloc(OUT_BLOCK);
    return p;
}

void zip_pipe_free(struct zip_pipe *p)
{
    if (!p)
        return;
    inflater_free(p->inflater);
    free(p->in);
    for (size_t i = 0; i < RING; i++)
        free(p->ring[i]);
    if (p->monitor)
        monitor_free(p->monitor);
    error_sink_free(&p->taker_sink);
    free(p);
}

/* The taker's thread: each filled buffer in turn, until the last or a failure. */
static int taker_main(void *arg)
{
    struct zip_pipe *p = arg;
    monitor_enter(p->monitor);
    for (;;) {
        while (p->taken == p->filled && !p->done)
            monitor_wait(p->monitor);
        if (p->taken == p->filled)
            break;
        size_t slot = p->taken % RING;
        monitor_leave(p->monitor);
        int rc = p->taker->take(p->taker->arg, error_sink_ctx(&p->taker_sink), p->ring[slot],
                                p->len[slot]);
        monitor_enter(p->monitor);
        p->taken++;
        if (rc) {
            p->taker_failed = true;
            monitor_wake(p->monitor);
            break;
        }
        monitor_wake(p->monitor);
    }
    monitor_leave(p->monitor);
    return 0;
}

/* A buffer to inflate into: with a taker thread, the next free slot of the ring. NULL when
 * the taker has failed. */
static unsigned char *next_buffer(struct zip_pipe *p, bool threaded)
{
    if (!threaded)
        return p->ring[0];
    monitor_enter(p->monitor);
    while (p->filled - p->taken == RING && !p->taker_failed)
        monitor_wait(p->monitor);
    unsigned char *buf = p->taker_failed ? NULL : p->ring[p->filled % RING];
    monitor_leave(p->monitor);
    return buf;
}

static int hand_over(cdm_ctx *ctx, struct zip_pipe *p, bool threaded, const struct zip_taker *t,
                     unsigned char *buf, size_t n)
{
    if (!threaded)
        return t->take(t->arg, ctx, buf, n);
    monitor_enter(p->monitor);
    p->len[p->filled % RING] = n;
    p->filled++;
    monitor_wake(p->monitor);
    monitor_leave(p->monitor);
    return CDM_OK;
}

static int damaged(cdm_ctx *ctx, const char *path, const char *name, const char *why)
{
    return cdm_error_set(ctx, CDM_EARCHIVE,
                         "cannot read archive '%s' at entry '%s': it is damaged or incomplete; "
                         "download it again (%s)",
                         path, name, why);
}

struct entry_run {
    cdm_ctx *ctx;
    struct zip_pipe *p;
    struct zip_in *r;
    const char *path, *name;
    const struct zip_dir_entry *e;
    const struct zip_taker *taker;
    atomic_bool *stop;
    bool threaded;
};

/* Read, inflate and hand over the entry's bytes; the checks of its end. */
static int inflate_entry(struct entry_run *x)
{
    struct zip_pipe *p = x->p;
    const struct zip_dir_entry *e = x->e;
    uint64_t left_in = e->compressed, made_all = 0;
    size_t in_at = 0, in_len = 0;
    inflater_begin(p->inflater, e->method);
    for (;;) {
        if (atomic_load(x->stop))
            return CDM_EIO; /* another worker's error is the one told */
        if (in_at == in_len && left_in > 0) {
            size_t want = left_in < IN_BLOCK ? (size_t)left_in : IN_BLOCK;
            long long n = zip_in_read(x->ctx, x->r, p->in, want);
            if (n < 0)
                return (int)n;
            if (n == 0)
                return damaged(x->ctx, x->path, x->name, "the file ends inside the entry");
            in_at = 0;
            in_len = (size_t)n;
            left_in -= (uint64_t)n;
        }
        unsigned char *out = next_buffer(p, x->threaded);
        if (!out)
            return CDM_EIO; /* the taker's error is the one told */
        size_t used, made;
        enum inflate_status s =
            inflater_step(p->inflater, p->in + in_at, in_len - in_at, &used, out, OUT_BLOCK, &made);
        in_at += used;
        if (s == INFLATE_DAMAGED)
            return damaged(x->ctx, x->path, x->name, "its data is not a valid deflate stream");
        if (made > e->size - made_all)
            return damaged(x->ctx, x->path, x->name,
                           "it holds more bytes than the zip's directory says");
        made_all += made;
        if (made) {
            int rc = hand_over(x->ctx, p, x->threaded, x->taker, out, made);
            if (rc)
                return rc;
        }
        if (s == INFLATE_END || (e->method == ZIP_STORED && made_all == e->size))
            break;
        if (!used && !made && in_at == in_len && left_in == 0)
            return damaged(x->ctx, x->path, x->name, "its data ends too soon");
    }
    if (made_all < e->size)
        return damaged(x->ctx, x->path, x->name,
                       "it holds fewer bytes than the zip's directory says");
    if (inflater_crc(p->inflater) != e->crc32)
        return damaged(x->ctx, x->path, x->name, "its CRC-32 does not match");
    return CDM_OK;
}

int zip_pipe_entry(cdm_ctx *ctx, struct zip_pipe *p, struct zip_in *r, const char *path,
                   const char *name, const struct zip_dir_entry *e, uint64_t start,
                   const struct zip_taker *taker, atomic_bool *stop)
{
    long long at = zip_in_seek(ctx, r, (long long)start, SEEK_SET);
    if (at < 0)
        return (int)at;
    struct entry_run x = {ctx, p, r, path, name, e, taker, stop, false};
    struct thread *t = NULL;
    if (e->size >= THREAD_MIN) {
        if (!p->monitor)
            p->monitor = monitor_new();
        p->filled = p->taken = 0;
        p->done = p->taker_failed = false;
        p->taker = taker;
        t = thread_start(taker_main, p);
        x.threaded = t != NULL;
    }
    int rc = inflate_entry(&x);
    if (!t)
        return rc;
    monitor_enter(p->monitor);
    p->done = true;
    monitor_wake(p->monitor);
    monitor_leave(p->monitor);
    thread_join(t);
    if (p->taker_failed) { /* its error is the cause, whatever the inflating side met after */
        rc = error_sink_pass(ctx, &p->taker_sink, CDM_EIO, "cannot write the entry");
    }
    return rc;
}
