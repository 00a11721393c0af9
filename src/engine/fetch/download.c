/* One archive into a .partial file, resumable and verified: see download.h. */
#include "download.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/sha256.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BLOCK (1 << 20)

int download_hold(cdm_ctx *ctx, const char *folder, const struct manifest_entry *e,
                  struct download *d)
{
    memset(d, 0, sizeof(*d));
    char *root = path_dirname(folder);
    int rc = fs_mkdir_p(ctx, root);
    free(root);
    if (rc || (rc = store_own_dir(ctx, folder, true)))
        return rc;
    char *name = xasprintf("%s.partial", e->name);
    d->partial = path_join(folder, name);
    free(name);
    d->max_size = ctx->config.max_total_size;
    d->stop = &ctx->interrupted;
    d->progress = ctx->options.progress;
    d->progress_arg = ctx->options.callback_arg;
    uint64_t size;
    rc = fs_partial_open(ctx, d->partial, false, &d->file, &size);
    if (rc == CDM_EBUSY) {
        cdm_note(ctx, "waiting for another cdm process downloading '%s'", e->name);
        rc = fs_partial_open(ctx, d->partial, true, &d->file, &size);
    }
    if (rc) {
        free(d->partial);
        memset(d, 0, sizeof(*d));
    }
    return rc;
}

void download_release(cdm_ctx *ctx, struct download *d, bool remove)
{
    if (d->file && (remove || fs_partial_size(d->file) == 0)) {
        /* deleted while still locked, so no waiter takes it up half gone */
        struct saved_error saved = error_save(ctx);
        fs_remove_file(ctx, d->partial);
        error_restore(ctx, &saved);
    }
    fs_partial_close(d->file);
    free(d->partial);
    memset(d, 0, sizeof(*d));
}

/* The transfer's state, seen by the sink callbacks. */
struct transfer {
    cdm_ctx *ctx;
    const struct manifest_entry *e;
    struct download *d;
    struct sha256 *hash;
    const char *url;
};

static uint64_t kept(void *arg)
{
    struct transfer *t = arg;
    return fs_partial_size(t->d->file);
}

/* The partial's size told to whoever reads it meanwhile: their status stops the transfer. */
static int tell_size(struct transfer *t)
{
    const struct download_watch *w = t->d->watch;
    return w ? w->size_now(w->arg, fs_partial_size(t->d->file)) : CDM_OK;
}

static int start_over(struct transfer *t)
{
    sha256_reset(t->hash);
    int rc = fs_partial_truncate(t->ctx, t->d->file);
    return rc ? rc : tell_size(t);
}

static int restart(void *arg)
{
    struct transfer *t = arg;
    cdm_note(t->ctx, "the server cannot continue '%s' from the bytes kept; starting again",
             t->e->name);
    return start_over(t);
}

/* A body announced longer than the file can be (its manifest's size, else [install]
 * max_size) is refused at the headers, not read until a timeout. */
static int announced_length(struct transfer *t, const struct http_head *h, uint64_t start)
{
    uint64_t limit = t->e->size ? t->e->size : t->d->max_size;
    if (!h->length || start + h->length <= limit)
        return CDM_OK;
    fs_partial_truncate(t->ctx, t->d->file);
    return cdm_error_set(t->ctx, CDM_ECHECKSUM,
                         "'%s' is announced as %llu bytes (Content-Length), longer than %s "
                         "(%llu bytes); nothing was downloaded or installed; the mirror may be "
                         "damaged or tampered with",
                         t->url, (unsigned long long)(start + h->length),
                         t->e->size ? "its manifest gives" : "[install] max_size",
                         (unsigned long long)limit);
}

static int head_accepted(void *arg, const struct http_head *h)
{
    struct transfer *t = arg;
    uint64_t have = fs_partial_size(t->d->file);
    if (h->status == 206 && h->has_range && h->range_start == have)
        return announced_length(t, h, have);
    if (h->status == 206)
        return cdm_error_set(t->ctx, CDM_ENETWORK,
                             "cannot download '%s': asked for the bytes from %llu, the server "
                             "sent %s%llu; try again later, or use another [fetch] base",
                             t->url, (unsigned long long)have, h->has_range ? "bytes from " : "",
                             h->has_range ? (unsigned long long)h->range_start : 0ULL);
    if (have > 0) {
        /* a whole file where a range was asked for: the server ignores ranges */
        cdm_note(t->ctx, "the server sends '%s' whole, not from byte %llu: starting again",
                 t->e->name, (unsigned long long)have);
        int rc = start_over(t);
        return rc ? rc : announced_length(t, h, 0);
    }
    return announced_length(t, h, 0);
}

/* The response's head: the bytes kept are what this response continues, told to a reader
 * only now (a server that sends the file whole again has them cut back first). */
static int head(void *arg, const struct http_head *h)
{
    int rc = head_accepted(arg, h);
    return rc ? rc : tell_size(arg);
}

static int body(void *arg, const void *data, size_t n)
{
    struct transfer *t = arg;
    uint64_t have = fs_partial_size(t->d->file);
    if (*t->d->stop) /* Ctrl-C: what came is kept to resume from, and said so */
        return cdm_error_set(t->ctx, CDM_EIO,
                             "download of '%s' interrupted; the %llu bytes so far stay in '%s' "
                             "for the next run to resume ('cdm gc' removes them)",
                             t->url, (unsigned long long)have, t->d->partial);
    if (t->e->size && have + n > t->e->size) {
        fs_partial_truncate(t->ctx, t->d->file);
        return cdm_error_set(t->ctx, CDM_ECHECKSUM,
                             "'%s' is longer than the %llu bytes its manifest gives; the "
                             "download was deleted and nothing was installed; the mirror may be "
                             "damaged or tampered with",
                             t->url, (unsigned long long)t->e->size);
    }
    /* An archive of unknown size (from before the manifests) is bounded by what an install
     * may unpack: its hash is checked only at the end. */
    if (!t->e->size && have + n > t->d->max_size) {
        fs_partial_truncate(t->ctx, t->d->file);
        return cdm_error_set(t->ctx, CDM_ECHECKSUM,
                             "'%s' is longer than [install] max_size (%llu bytes); the download "
                             "was deleted and nothing was installed",
                             t->url, (unsigned long long)t->d->max_size);
    }
    int rc = fs_partial_append(t->ctx, t->d->file, data, n);
    if (rc)
        return cdm_error_set(t->ctx, rc,
                             "%s; free some space (the %llu bytes downloaded so far are kept "
                             "and the next run resumes)",
                             cdm_error_message(t->ctx), (unsigned long long)have);
    sha256_update(t->hash, data, n);
    if (t->d->progress)
        t->d->progress(t->d->progress_arg, have + n, t->e->size);
    return tell_size(t);
}

/* Hash the bytes a partial holds already (a resumed download). */
static int hash_kept(cdm_ctx *ctx, struct download *d, struct sha256 *hash)
{
    uint64_t size = fs_partial_size(d->file), at = 0;
    char *buf = xmalloc(HASH_BLOCK);
    int rc = CDM_OK;
    while (at < size) {
        long long n = fs_partial_read(ctx, d->file, at, buf, HASH_BLOCK);
        if (n <= 0) {
            rc = n < 0 ? (int)n
                       : cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it became shorter",
                                       d->partial);
            break;
        }
        sha256_update(hash, buf, (size_t)n);
        at += (uint64_t)n;
    }
    free(buf);
    return rc;
}

static int transfer(struct transfer *t, struct net *net)
{
    cdm_ctx *ctx = t->ctx;
    uint64_t have = fs_partial_size(t->d->file);
    int rc = CDM_OK;
    /* Not a prefix of this archive; or, of unknown size, no telling whether it is whole:
     * started again */
    if (have > t->e->size || (!t->e->size && have)) {
        have = 0;
        if ((rc = start_over(t)))
            return rc;
    }
    rc = hash_kept(ctx, t->d, t->hash);
    if (rc || (t->e->size && have == t->e->size))
        return rc;
    char size[32] = "size not published";
    if (t->e->size)
        format_size(size, sizeof(size), t->e->size);
    if (have)
        cdm_note(ctx, "resuming '%s' at byte %llu of %llu", t->e->name, (unsigned long long)have,
                 (unsigned long long)t->e->size);
    else
        cdm_note(ctx, "downloading '%s' (%s)", t->url, size);
    struct net_sink sink = {kept, restart, head, body, t, NULL, 0};
    rc = net_get(net, t->url, &sink);
    have = fs_partial_size(t->d->file);
    if (rc == CDM_ENETWORK && have > 0)
        return cdm_error_set(ctx, rc,
                             "%s; the %llu bytes received are kept in '%s': run the command "
                             "again to resume",
                             cdm_error_message(ctx), (unsigned long long)have, t->d->partial);
    if (!rc && t->e->size && have != t->e->size)
        rc = cdm_error_set(ctx, CDM_ENETWORK,
                           "cannot download '%s': the server sent %llu of its %llu bytes; run "
                           "the command again to resume",
                           t->url, (unsigned long long)have, (unsigned long long)t->e->size);
    return rc;
}

int download_run(cdm_ctx *ctx, struct net *net, const char *url, const struct manifest_entry *e,
                 struct download *d)
{
    struct transfer t = {ctx, e, d, sha256_new(), url};
    bool fresh = fs_partial_size(d->file) == 0;
    int rc;
    for (;;) {
        if ((rc = transfer(&t, net)))
            break;
        char got[65];
        sha256_finish_hex(t.hash, got);
        if (!strcmp(got, e->sha256)) {
            rc = d->kept ? fs_partial_sync(ctx, d->file) : CDM_OK;
            break;
        }
        if (!fresh) {
            /* the bytes kept from before may be the wrong ones: once more from nothing */
            cdm_note(ctx, "'%s' resumed does not match its manifest; downloading it again",
                     e->name);
            fresh = true;
            if ((rc = start_over(&t)))
                break;
            continue;
        }
        fs_partial_truncate(ctx, d->file);
        rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                           "'%s' does not match %s: sha256 %s expected, %s received; "
                           "the download was deleted and nothing was installed; the mirror may "
                           "be damaged or tampered with, try again or use another [fetch] base",
                           url,
                           e->legacy ? "cdm's table of NVIDIA's archives (or [fetch] legacy_sums)"
                                     : "its manifest",
                           e->sha256, got);
        break;
    }
    sha256_free(t.hash);
    return rc;
}
