/*
 * The writer thread of an extraction (extract_writer.h). One monitor guards the queue and
 * the free blocks; the writer takes blocks in order and gives each back when done, so the
 * reader waits only when it is a whole pool ahead.
 */
#include "extract_writer.h"

#include "platform/fs.h"
#include "platform/sha256.h"
#include "platform/thread.h"

#include <stdlib.h>
#include <string.h>

/* 32 blocks of 256 KiB: 8 MiB, enough to keep a decoder busy while the writer waits on
 * the disk, small beside the 64 MiB a whole install may use. */
#define POOL_BLOCKS 32

enum block_kind { B_ARCHIVE, B_OPEN, B_DATA, B_CLOSE };

struct block {
    struct xw_block pub; /* first: a struct xw_block * is a struct block * */
    struct block *next;
    int holders; /* the queue and, for archive bytes, the reader's decoder */
    enum block_kind kind;
    bool executable;
    char *path; /* B_OPEN */
};

struct extract_writer {
    struct monitor *mon;
    struct thread *thread;
    struct block blocks[POOL_BLOCKS];
    struct block *free_list;
    struct block *head, *tail; /* the queue */
    bool closing;              /* the reader gives nothing more */
    bool failed;               /* set by the writer, read by the reader */
    bool broken;               /* the writer's own copy of failed */

    /* the writer's own, touched only by the writer until xw_finish has joined it */
    struct error_sink sink; /* its errors, passed to the caller's context at the end */
    struct sha256 *archive_hash, *file_hash;
    struct fs_file *file;
    char *file_path;
    uint64_t file_size;
    struct xw_file *files;
    size_t file_count, file_cap;
};

static void release(struct extract_writer *w, struct block *b) /* inside the monitor */
{
    if (--b->holders > 0)
        return;
    free(b->path);
    b->path = NULL;
    b->next = w->free_list;
    w->free_list = b;
    monitor_wake(w->mon);
}

static void fail(struct extract_writer *w)
{
    w->broken = true;
    if (w->file)
        fs_file_abort(w->file);
    w->file = NULL;
    monitor_enter(w->mon);
    w->failed = true;
    monitor_wake(w->mon);
    monitor_leave(w->mon);
}

static void file_closed(struct extract_writer *w)
{
    if (w->file_count == w->file_cap) {
        w->file_cap = w->file_cap ? w->file_cap * 2 : 64;
        w->files = xrealloc(w->files, w->file_cap * sizeof(*w->files));
    }
    struct xw_file *f = &w->files[w->file_count++];
    f->size = w->file_size;
    sha256_finish_hex(w->file_hash, f->sha256);
    f->mode = fs_file_mode(w->file_path);
}

/* One block's work; after a failure only the archive's hash goes on (it is not used). */
static void process(struct extract_writer *w, struct block *b)
{
    cdm_ctx *ctx = error_sink_ctx(&w->sink);
    bool failed = w->broken;
    switch (b->kind) {
    case B_ARCHIVE:
        sha256_update(w->archive_hash, b->pub.data, b->pub.len);
        break;
    case B_OPEN:
        if (failed)
            break;
        free(w->file_path);
        w->file_path = xstrdup(b->path);
        w->file_size = 0;
        sha256_reset(w->file_hash);
        if (fs_file_create_read_only(ctx, b->path, b->executable, &w->file))
            fail(w);
        break;
    case B_DATA:
        if (failed || !w->file)
            break;
        sha256_update(w->file_hash, b->pub.data, b->pub.len);
        w->file_size += b->pub.len;
        if (fs_file_write(ctx, w->file, b->pub.data, b->pub.len))
            fail(w);
        break;
    case B_CLOSE:
        if (failed || !w->file)
            break;
        if (fs_file_close(ctx, w->file)) {
            w->file = NULL;
            fail(w);
        } else {
            w->file = NULL;
            file_closed(w);
        }
        break;
    }
}

static int writer_main(void *arg)
{
    struct extract_writer *w = arg;
    monitor_enter(w->mon);
    for (;;) {
        while (!w->head && !w->closing)
            monitor_wait(w->mon);
        struct block *b = w->head;
        if (!b)
            break;
        w->head = b->next;
        if (!w->head)
            w->tail = NULL;
        monitor_leave(w->mon);
        process(w, b);
        monitor_enter(w->mon);
        release(w, b);
    }
    monitor_leave(w->mon);
    return 0;
}

struct extract_writer *xw_start(struct sha256 *archive_hash)
{
    struct extract_writer *w = xcalloc(1, sizeof(*w));
    w->mon = monitor_new();
    w->archive_hash = archive_hash;
    w->file_hash = sha256_new();
    for (int i = POOL_BLOCKS - 1; i >= 0; i--) {
        w->blocks[i].pub.data = xmalloc(XW_BLOCK_SIZE);
        w->blocks[i].next = w->free_list;
        w->free_list = &w->blocks[i];
    }
    w->thread = thread_start(writer_main, w);
    return w;
}

struct xw_block *xw_take(struct extract_writer *w)
{
    monitor_enter(w->mon);
    while (!w->free_list && !w->failed)
        monitor_wait(w->mon);
    struct block *b = w->failed ? NULL : w->free_list;
    if (b) {
        w->free_list = b->next;
        b->next = NULL;
        b->holders = 1;
        b->pub.len = 0;
    }
    monitor_leave(w->mon);
    return b ? &b->pub : NULL;
}

static void push(struct extract_writer *w, struct block *b, enum block_kind kind)
{
    b->kind = kind;
    if (!w->thread) { /* no thread: the work is done here */
        process(w, b);
        monitor_enter(w->mon);
        release(w, b);
        monitor_leave(w->mon);
        return;
    }
    monitor_enter(w->mon);
    b->next = NULL;
    if (w->tail)
        w->tail->next = b;
    else
        w->head = b;
    w->tail = b;
    monitor_wake(w->mon);
    monitor_leave(w->mon);
}

void xw_archive_bytes(struct extract_writer *w, struct xw_block *pub)
{
    struct block *b = (struct block *)pub;
    b->holders = 2; /* the queue, and the reader until xw_give_back */
    push(w, b, B_ARCHIVE);
}

void xw_give_back(struct extract_writer *w, struct xw_block *pub)
{
    monitor_enter(w->mon);
    release(w, (struct block *)pub);
    monitor_leave(w->mon);
}

bool xw_file_open(struct extract_writer *w, const char *path, bool executable)
{
    struct block *b = (struct block *)xw_take(w);
    if (!b)
        return false;
    b->path = xstrdup(path);
    b->executable = executable;
    push(w, b, B_OPEN);
    return true;
}

void xw_file_data(struct extract_writer *w, struct xw_block *b)
{
    push(w, (struct block *)b, B_DATA);
}

bool xw_file_close(struct extract_writer *w)
{
    struct block *b = (struct block *)xw_take(w);
    if (!b)
        return false;
    push(w, b, B_CLOSE);
    return true;
}

/* Let the writer finish the queue and end; a file left open (the reader stopped within
 * it) is closed as it is (the caller deletes the folder). */
static void stop(struct extract_writer *w)
{
    if (w->thread) {
        monitor_enter(w->mon);
        w->closing = true;
        monitor_wake(w->mon);
        monitor_leave(w->mon);
        thread_join(w->thread);
        w->thread = NULL;
    }
    if (w->file) {
        fs_file_abort(w->file);
        w->file = NULL;
    }
}

int xw_finish(struct extract_writer *w, cdm_ctx *ctx, struct xw_file **files, size_t *count)
{
    stop(w);
    *files = w->files;
    *count = w->file_count;
    w->files = NULL;
    w->file_count = w->file_cap = 0;
    if (w->broken)
        return error_sink_pass(ctx, &w->sink, CDM_EIO, "cannot write a file");
    return CDM_OK;
}

void xw_free(struct extract_writer *w)
{
    if (!w)
        return;
    stop(w);
    for (int i = 0; i < POOL_BLOCKS; i++) {
        free(w->blocks[i].pub.data);
        free(w->blocks[i].path);
    }
    sha256_free(w->file_hash);
    free(w->file_path);
    free(w->files);
    error_sink_free(&w->sink);
    monitor_free(w->mon);
    free(w);
}
