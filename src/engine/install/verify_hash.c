/* Reading files on several threads for cdm verify and cdm sbom (verify_hash.h). */
#include "verify_hash.h"
#include "platform/fs.h"
#include "platform/sha1.h"
#include "platform/sha256.h"
#include "platform/thread.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BUF (1u << 17)

/* A thread's hashes: SHA-1 made only once a file asks for it. */
struct hashers {
    struct sha256 *sha256;
    struct sha1 *sha1;
};

struct pool {
    struct file_hash **files; /* the largest first */
    size_t n, next;
    struct monitor *m;
};

/* One file. The platform's readers see a context only as its error state (base/error.h):
 * each thread gives them one of its own, so that no two threads write one message. */
static void hash_one(struct file_hash *f, struct hashers *h, char *buf)
{
    if (f->want_sha1 && !h->sha1)
        h->sha1 = sha1_new();
    struct error_state errors = {0};
    cdm_ctx *own = (cdm_ctx *)(void *)&errors;
    struct fs_reader *r = NULL;
    uint64_t total = 0;
    if (fs_reader_open(own, f->path, &r, &total) == CDM_OK) {
        sha256_reset(h->sha256);
        long long n;
        unsigned long long size = 0;
        while ((n = fs_reader_read(own, r, buf, HASH_BUF)) > 0) {
            sha256_update(h->sha256, buf, (size_t)n);
            if (f->want_sha1)
                sha1_update(h->sha1, buf, (size_t)n);
            size += (unsigned long long)n;
        }
        fs_reader_close(r);
        if (f->want_sha1) /* finished either way: the next file starts it afresh */
            sha1_finish_hex(h->sha1, f->sha1);
        if (n == 0) {
            sha256_finish_hex(h->sha256, f->hex);
            f->size = size;
            f->done = true;
        }
    }
    error_state_free(&errors);
}

static int worker(void *arg)
{
    struct pool *p = arg;
    struct hashers h = {sha256_new(), NULL};
    char *buf = xmalloc(HASH_BUF);
    for (;;) {
        monitor_enter(p->m);
        size_t i = p->next < p->n ? p->next++ : p->n;
        monitor_leave(p->m);
        if (i == p->n)
            break;
        hash_one(p->files[i], &h, buf);
    }
    free(buf);
    sha256_free(h.sha256);
    sha1_free(h.sha1);
    return 0;
}

static int largest_first(const void *a, const void *b)
{
    const struct file_hash *x = *(struct file_hash *const *)a, *y = *(struct file_hash *const *)b;
    return x->expected < y->expected ? 1 : x->expected > y->expected ? -1 : 0;
}

void hash_files(struct file_hash *files, size_t n, unsigned threads)
{
    struct file_hash **order = xmalloc((n ? n : 1) * sizeof(*order));
    for (size_t i = 0; i < n; i++)
        order[i] = &files[i];
    qsort(order, n, sizeof(*order), largest_first);
    struct pool p = {order, n, 0, monitor_new()};
    if (threads > n)
        threads = n ? (unsigned)n : 1;
    struct thread **started = xcalloc(threads, sizeof(*started));
    for (unsigned t = 1; t < threads; t++)
        started[t] = thread_start(worker, &p); /* NULL: fewer threads, same work */
    worker(&p);
    for (unsigned t = 1; t < threads; t++)
        if (started[t])
            thread_join(started[t]);
    free(started);
    monitor_free(p.m);
    free(order);
}
