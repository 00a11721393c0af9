/* A download unpacked while it arrives: see download_stream.h. */
#include "download_stream.h"
#include "download_ahead.h"
#include "platform/thread.h"

#include <stdlib.h>
#include <string.h>

struct download_stream {
    struct monitor *monitor;
    struct thread *thread;  /* NULL once joined */
    struct error_sink sink; /* the download thread's context */
    struct net net;         /* the caller's settings, a session of its own */
    char **headers;         /* net's header lines, copied: the caller's go with its net */
    char *url;
    struct manifest_entry entry;
    struct download *d;
    struct download_watch watch;
    struct arriving arriving;
    struct download_ahead *ahead; /* a zip's directory and headers; NULL for a .tar.xz */
    /* in the monitor */
    uint64_t size; /* the bytes in the partial that the download stands behind */
    bool done;     /* download_run returned, with rc */
    bool stop;     /* the install ended first: stop at the next bytes */
    int rc;
    struct strbuf notes; /* the download's notes ("resuming...") for the command to say, one
                          * a line: only the command's thread calls its callbacks */
};

static void keep_note(void *arg, const char *message)
{
    struct download_stream *s = arg;
    monitor_enter(s->monitor);
    sb_addf(&s->notes, "%s\n", message);
    monitor_leave(s->monitor);
}

/* The notes kept so far, said in the command's thread. */
static void say_notes(cdm_ctx *ctx, struct download_stream *s)
{
    monitor_enter(s->monitor);
    char *notes = s->notes.len ? sb_detach(&s->notes) : NULL;
    monitor_leave(s->monitor);
    for (char *line = notes, *end; line && (end = strchr(line, '\n')); line = end + 1) {
        *end = '\0';
        cdm_note(ctx, "%s", line);
    }
    free(notes);
}

/* The download thread tells each new size; the install's end stops it. */
static int size_now(void *arg, uint64_t size)
{
    struct download_stream *s = arg;
    monitor_enter(s->monitor);
    s->size = size;
    bool stop = s->stop;
    monitor_wake(s->monitor);
    monitor_leave(s->monitor);
    return stop ? cdm_error_set(error_sink_ctx(&s->sink), CDM_EIO, "the install stopped") : CDM_OK;
}

static long long wait_for(void *arg, cdm_ctx *ctx, uint64_t have)
{
    struct download_stream *s = arg;
    monitor_enter(s->monitor);
    while (!s->done && s->size <= have)
        monitor_wait(s->monitor);
    uint64_t size = s->size;
    bool done = s->done;
    int rc = s->rc;
    monitor_leave(s->monitor);
    say_notes(ctx, s);
    /* a failed download may have cut the file back without saying so: its end is the news */
    if (done && rc != CDM_OK)
        return error_sink_pass(ctx, &s->sink, rc, "the download stopped");
    return (long long)(size > have ? size : have); /* have: the whole file, its hash checked */
}

#define AHEAD_NEAR (256u << 10) /* bytes this close to the download's end are waited for */

/* A zip's bytes had ahead, where the download has not written them yet (a reader that
 * finds them written waits for the download, which then answers at once); those about to
 * come are not asked for. */
static size_t had_ahead(void *arg, uint64_t offset, void *buf, size_t n, bool fetch)
{
    struct download_stream *s = arg;
    monitor_enter(s->monitor);
    bool written = s->size > offset || s->done;
    bool near = offset < s->size + AHEAD_NEAR;
    monitor_leave(s->monitor);
    return written ? 0 : download_ahead_copy(s->ahead, offset, buf, n, fetch && !near);
}

static int stream_main(void *arg)
{
    struct download_stream *s = arg;
    int rc = download_run(error_sink_ctx(&s->sink), &s->net, s->url, &s->entry, s->d);
    monitor_enter(s->monitor);
    s->done = true;
    s->rc = rc;
    monitor_wake(s->monitor);
    monitor_leave(s->monitor);
    return rc;
}

static char **copy_lines(const char *const *lines)
{
    size_t n = 0;
    while (lines && lines[n])
        n++;
    char **copy = xcalloc(n + 1, sizeof(*copy));
    for (size_t i = 0; i < n; i++)
        copy[i] = xstrdup(lines[i]);
    return copy;
}

static void stream_free(struct download_stream *s)
{
    download_ahead_free(s->ahead);
    strv_free(s->headers);
    net_close(&s->net);
    error_sink_free(&s->sink);
    monitor_free(s->monitor);
    sb_free(&s->notes);
    free(s->url);
    free(s);
}

struct download_stream *download_stream_start(cdm_ctx *ctx, const struct net *net, const char *url,
                                              const struct manifest_entry *e, struct download *d)
{
    struct download_stream *s = xcalloc(1, sizeof(*s));
    error_sink_init(&s->sink, &ctx->interrupted);
    s->sink.err.note = keep_note;
    s->sink.err.warn_arg = s;
    s->monitor = monitor_new();
    s->net = *net;
    s->net.http = NULL; /* a session of this thread's own */
    s->net.ctx = error_sink_ctx(&s->sink);
    s->headers = copy_lines(net->headers);
    s->net.headers = (const char *const *)s->headers;
    s->url = xstrdup(url);
    s->entry = *e;
    s->d = d;
    s->size = fs_partial_size(d->file);
    s->watch = (struct download_watch){size_now, s};
    s->arriving = (struct arriving){e->size, wait_for, NULL, s};
    if (archive_is_zip_name(e->name)) {
        s->ahead = download_ahead_new(ctx, &s->net, url, e->size);
        s->arriving.ahead = had_ahead;
    }
    d->watch = &s->watch;
    if (!s->ahead) /* a .tar.xz's install shows how far it read, which is how far it came */
        d->progress = NULL;
    if (!(s->thread = thread_start(stream_main, s))) {
        d->watch = NULL;
        d->progress = ctx->options.progress;
        stream_free(s);
        return NULL;
    }
    return s;
}

const struct arriving *download_stream_arriving(struct download_stream *s)
{
    return &s->arriving;
}

bool download_stream_ahead_agrees(cdm_ctx *ctx, struct download_stream *s)
{
    return !s->ahead || download_ahead_agrees(ctx, s->ahead, s->d->file);
}

int download_stream_finish(cdm_ctx *ctx, struct download_stream *s)
{
    if (s->thread) {
        thread_join(s->thread);
        s->thread = NULL;
    }
    say_notes(ctx, s);
    return s->rc ? error_sink_pass(ctx, &s->sink, s->rc, "the download failed") : CDM_OK;
}

bool download_stream_end(struct download_stream *s)
{
    if (!s)
        return false;
    if (s->thread) {
        monitor_enter(s->monitor);
        s->stop = true;
        monitor_leave(s->monitor);
        thread_join(s->thread);
    }
    bool whole = s->done && s->rc == CDM_OK;
    s->d->watch = NULL;
    stream_free(s);
    return whole;
}
