/*
 * Extracting a zip with several threads. A zip's entries are compressed one by one, so
 * they can be inflated at once: the central directory is walked first (every entry checked
 * as a tar's are, folders made, links held), then the regular files are shared among
 * workers, one per core, the largest first to the least loaded, each worker reading its
 * own files in the directory's order; a thread of its own hashes the archive file
 * meanwhile (from the page cache). A worker inflates an entry itself where cdm's reading
 * of the directory finds it (zip_directory.h: ISA-L's inflater where the system has it,
 * the large ones hashed and written on a second thread, zip_pipe.h), else through its own
 * libarchive reader. The records, links and header checks are then made in the
 * directory's order, as a single reader would make them.
 */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>
#include <archive_entry.h>

#include "archive_walk.h"
#include "inflate.h"
#include "zip_in.h"
#include "zip_pipe.h"
#include "platform/fs.h"
#include "platform/sha256.h"
#include "platform/thread.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZIP_WORKERS_MAX 64 /* past it, more threads only share the disk's bandwidth */
#define WORK_BLOCK      (256 * 1024)

struct job {
    char *raw, *rel, *full; /* the entry's name as stored, below the top folder, on disk */
    size_t entry;           /* its place in the central directory */
    size_t record;          /* its place in result->files */
    uint64_t declared;
    bool executable, keep;
    /* the worker's results */
    uint64_t size;
    char sha256[65];
    int mode;
    struct strbuf header; /* the text of a version header */
};

struct plan {
    struct job *jobs;
    size_t count, cap;
    size_t entry; /* the entry being walked */
    uint64_t declared;
};

struct shared {
    const char *path;
    const struct extract_limits *limits;
    const struct zip_directory *directory; /* NULL: libarchive reads every entry */
    atomic_ullong extracted;
    atomic_size_t inflated_here; /* entries the workers inflated themselves */
    atomic_bool stop;            /* a worker failed: the others give up */
};

struct worker {
    struct shared *shared;
    struct job **mine;
    size_t count, cap;
    uint64_t load;
    /* the worker's errors, and the command's Ctrl-C (the context's flag, set by the signal
     * handler), which it looks at every block */
    struct error_sink sink;
    /* a worker's readers, opened at its first entry of each kind */
    struct zip_in *reader;
    struct zip_pipe *pipe;
    struct archive *archive;
    struct zip_source *source;
    size_t archive_entry; /* the next entry the libarchive reader would give */
    bool failed;
    struct thread *thread;
};

static int plan_file(struct walk *w, struct archive *a, struct archive_entry *e, const char *rel)
{
    (void)a;
    struct plan *p = w->arg;
    if (p->count == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->jobs = xrealloc(p->jobs, p->cap * sizeof(*p->jobs));
    }
    struct job *j = &p->jobs[p->count++];
    memset(j, 0, sizeof(*j));
    const char *raw = archive_entry_pathname_utf8(e);
    j->raw = xstrdup(raw ? raw : archive_entry_pathname(e));
    j->rel = xstrdup(rel);
    j->full = path_join(w->dest, rel);
    j->entry = p->entry;
    j->record = w->result->file_count;
    j->declared = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
    j->executable = (archive_entry_perm(e) & 0111) != 0;
    j->keep = walk_is_version_header(rel);
    j->header = (struct strbuf)STRBUF_INIT;
    p->declared += j->declared;
    walk_add_file(w, rel, 0, "", NULL, -1); /* size, hash and mode once written */
    return CDM_OK;
}

static int too_big(cdm_ctx *ctx, const char *path, const struct extract_limits *limits)
{
    return cdm_error_set(ctx, CDM_EARCHIVE,
                         "refusing archive '%s': it unpacks to more than %llu bytes "
                         "([install] max_size); nothing was installed",
                         path, limits->max_total_size);
}

/* Where a job's bytes go: its file, its hash, the text of a version header. */
struct job_output {
    struct shared *shared;
    const struct error_sink *sink; /* the worker's: its stop flag */
    struct job *job;
    struct fs_file *file;
    struct sha256 *hash;
};

static int take_bytes(void *arg, cdm_ctx *ctx, const unsigned char *buf, size_t n)
{
    struct job_output *o = arg;
    struct job *j = o->job;
    struct shared *sh = o->shared;
    if (error_sink_stopped(o->sink))
        return cdm_error_set(ctx, CDM_EIO, "interrupted");
    j->size += (uint64_t)n;
    if (atomic_fetch_add(&sh->extracted, (unsigned long long)n) + (unsigned long long)n >
        sh->limits->max_total_size)
        return too_big(ctx, sh->path, sh->limits);
    sha256_update(o->hash, buf, n);
    if (j->keep && j->header.len < HEADER_KEEP)
        sb_addn(&j->header, (const char *)buf, n);
    return fs_file_write(ctx, o->file, buf, n);
}

/* The job's bytes through libarchive, from the entry its reader stands at. */
static int copy_from_archive(struct worker *k, struct job_output *o)
{
    cdm_ctx *ctx = error_sink_ctx(&k->sink);
    struct shared *sh = k->shared;
    int rc = CDM_OK;
    while (!rc) {
        if (atomic_load(&sh->stop))
            return CDM_EIO; /* another worker's error is the one told */
        /* The reader's own block, not a copy of it (470 MB fewer bytes moved). */
        const void *buf;
        size_t n;
        la_int64_t at;
        int r = archive_read_data_block(k->archive, &buf, &n, &at);
        if (r == ARCHIVE_EOF)
            break;
        /* A bad CRC comes as ARCHIVE_WARN: any word but OK is a refusal (as archive_read_data,
         * which returns it as a negative count). */
        if (r != ARCHIVE_OK || at != (la_int64_t)o->job->size)
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "cannot read archive '%s' at entry '%s': it is damaged or "
                                 "incomplete; download it again (%s)",
                                 sh->path, o->job->raw,
                                 r != ARCHIVE_OK ? archive_error_string(k->archive)
                                                 : "a gap in its data");
        rc = take_bytes(o, ctx, buf, n);
    }
    return rc;
}

/* Move the worker's libarchive reader to the job's entry and check it is the same one. */
static int archive_seek_job(struct worker *k, struct job *j)
{
    cdm_ctx *ctx = error_sink_ctx(&k->sink);
    const char *path = k->shared->path;
    if (!k->archive && !(k->archive = zip_open_arriving(ctx, path, k->shared->limits->arriving,
                                                        false, &k->source)))
        return cdm_error_code(ctx);
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(k->archive, &e);
        if (r != ARCHIVE_OK) /* a warning too: bsdtar fails on it */
            return zip_failed(ctx, path, k->archive, k->source);
        if (r == ARCHIVE_EOF || k->archive_entry > j->entry)
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "cannot install '%s': entry '%s' is gone on the second read; "
                                 "was the file changed meanwhile? nothing was installed",
                                 path, j->raw);
        if (k->archive_entry++ < j->entry)
            continue;
        const char *raw = archive_entry_pathname_utf8(e);
        if (!raw)
            raw = archive_entry_pathname(e);
        if (!raw || strcmp(raw, j->raw) || archive_entry_filetype(e) != AE_IFREG)
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "cannot install '%s': entry '%s' is not what it was on the "
                                 "first read; was the file changed meanwhile? nothing was "
                                 "installed",
                                 path, j->raw);
        return CDM_OK;
    }
}

/* The job's entry inflated by the worker itself, when cdm's reading of the directory has
 * it: 1 done (or failed: rc), 0 when libarchive must read it. */
static int inflate_here(struct worker *k, struct job_output *o, int *rc)
{
    struct shared *sh = k->shared;
    cdm_ctx *ctx = error_sink_ctx(&k->sink);
    const struct zip_dir_entry *e =
        sh->directory ? zip_directory_find(sh->directory, o->job->raw, o->job->declared) : NULL;
    if (!e)
        return 0;
    if (!k->reader) {
        uint64_t size;
        if ((*rc = zip_in_open(ctx, sh->path, sh->limits->arriving, false, &k->reader, &size)))
            return 1;
        k->pipe = zip_pipe_new();
    }
    /* its local header was read and checked once, with the directory (read_directory) */
    struct zip_taker taker = {take_bytes, o};
    *rc = zip_pipe_entry(ctx, k->pipe, k->reader, sh->path, o->job->raw, e, e->data_start, &taker,
                         &sh->stop);
    if (!*rc)
        atomic_fetch_add(&sh->inflated_here, 1);
    return 1;
}

static int write_job(struct worker *k, struct job *j, struct sha256 *hash)
{
    cdm_ctx *ctx = error_sink_ctx(&k->sink);
    struct job_output o = {k->shared, &k->sink, j, NULL, hash};
    int rc = fs_file_create_read_only(ctx, j->full, j->executable, &o.file);
    sha256_reset(hash);
    if (!rc && !inflate_here(k, &o, &rc) && !(rc = archive_seek_job(k, j)))
        rc = copy_from_archive(k, &o);
    if (o.file) {
        if (rc)
            fs_file_abort(o.file);
        else
            rc = fs_file_close(ctx, o.file);
    }
    if (!rc) {
        sha256_finish_hex(hash, j->sha256);
        j->mode = fs_file_mode(j->full);
    }
    return rc;
}

/* One worker: its files, in the directory's order. */
static int worker_main(void *arg)
{
    struct worker *k = arg;
    struct sha256 *hash = sha256_new();
    int rc = CDM_OK;
    for (size_t next = 0; !rc && next < k->count; next++)
        rc = write_job(k, k->mine[next], hash);
    if (rc) {
        k->failed = true;
        atomic_store(&k->shared->stop, true);
    }
    if (k->archive)
        zip_close(k->archive, k->source);
    if (k->reader)
        zip_in_close(k->reader);
    zip_pipe_free(k->pipe);
    k->archive = NULL;
    k->reader = NULL;
    k->pipe = NULL;
    sha256_free(hash);
    return rc;
}

struct hasher {
    const char *path;
    const struct arriving *arriving;
    struct error_sink sink; /* its errors, and the command's stop flag */
    char sha256[65];
    uint64_t size;
    int rc;
};

/* The archive file's hash, read apart from the workers (the page cache serves both). */
static int hash_main(void *arg)
{
    struct hasher *h = arg;
    struct zip_in *r;
    uint64_t total;
    if ((h->rc = zip_in_open(error_sink_ctx(&h->sink), h->path, h->arriving, false, &r, &total)))
        return h->rc;
    struct sha256 *hash = sha256_new();
    unsigned char *buf = xmalloc(WORK_BLOCK);
    long long n = 0;
    while (!error_sink_stopped(&h->sink) &&
           (n = zip_in_read(error_sink_ctx(&h->sink), r, buf, WORK_BLOCK)) > 0) {
        sha256_update(hash, buf, (size_t)n);
        h->size += (uint64_t)n;
    }
    if (n < 0)
        h->rc = (int)n;
    sha256_finish_hex(hash, h->sha256);
    sha256_free(hash);
    free(buf);
    zip_in_close(r);
    return h->rc;
}

static int by_size_desc(const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    return x->declared < y->declared ? 1 : x->declared > y->declared ? -1 : 0;
}

static int by_entry(const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The largest file first, each to the worker with the least to do; each worker then
 * reads its own in the directory's order (one pass through its reader). */
static size_t share(struct plan *p, struct worker *workers, size_t n)
{
    struct job **order = xmalloc((p->count ? p->count : 1) * sizeof(*order));
    for (size_t i = 0; i < p->count; i++)
        order[i] = &p->jobs[i];
    qsort(order, p->count, sizeof(*order), by_size_desc);
    if (n > p->count)
        n = p->count ? p->count : 1;
    for (size_t i = 0; i < p->count; i++) {
        struct worker *least = &workers[0];
        for (size_t k = 1; k < n; k++)
            if (workers[k].load < least->load)
                least = &workers[k];
        if (least->count == least->cap) {
            least->cap = least->cap ? least->cap * 2 : 16;
            least->mine = xrealloc(least->mine, least->cap * sizeof(*least->mine));
        }
        least->mine[least->count++] = order[i];
        least->load += order[i]->declared + 1;
    }
    for (size_t k = 0; k < n; k++)
        if (workers[k].count) /* an empty zip: no array to sort */
            qsort(workers[k].mine, workers[k].count, sizeof(*workers[k].mine), by_entry);
    free(order);
    return n;
}

/* Run the workers and the hasher; the first failure's error goes into ctx. */
static int run_all(cdm_ctx *ctx, struct worker *workers, size_t n, struct hasher *h)
{
    struct thread *hash_thread = thread_start(hash_main, h);
    for (size_t k = 0; k < n; k++)
        workers[k].thread = thread_start(worker_main, &workers[k]);
    for (size_t k = 0; k < n; k++) {
        if (workers[k].thread)
            thread_join(workers[k].thread);
        else
            worker_main(&workers[k]); /* no thread to be had: here, one after another */
    }
    if (hash_thread)
        thread_join(hash_thread);
    else
        hash_main(h);
    /* a worker's own failure, not one that only stopped because another had failed */
    for (size_t k = 0; k < n; k++)
        if (workers[k].failed && workers[k].sink.err.message)
            return error_sink_pass(ctx, &workers[k].sink, CDM_EIO, "");
    if (h->rc)
        return error_sink_pass(ctx, &h->sink, h->rc, "cannot read the archive");
    /* a Ctrl-C after the last block still stops the install: nothing is recorded */
    return ctx->interrupted ? cdm_error_set(ctx, CDM_EIO, "interrupted") : CDM_OK;
}

/* The walk of the central directory: every entry checked, folders made, files planned. */
static int walk_directory(struct walk *w, struct plan *p)
{
    struct zip_source *src = NULL;
    struct archive *a = zip_open_arriving(w->ctx, w->archive_path, w->limits->arriving, true, &src);
    if (!a)
        return cdm_error_code(w->ctx);
    int rc = CDM_OK;
    for (;; p->entry++) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK) { /* a warning too ("inconsistent uncompressed size") */
            rc = zip_failed_at(w->ctx, w->archive_path, a, src,
                               r == ARCHIVE_WARN ? archive_entry_pathname(e) : NULL);
            break;
        }
        if ((rc = walk_entry(w, a, e)))
            break;
        fs_crash_point("extract-entry"); /* the tests' Ctrl-C: the workers must see it */
    }
    zip_close(a, src);
    if (!rc && p->declared > w->limits->max_total_size)
        rc = too_big(w->ctx, w->archive_path, w->limits);
    return rc;
}

/* cdm's own reading of the zip's directory (zip_directory.h): 1 when the workers can use
 * it, 0 when it cannot be used (libarchive then reads every entry, and tells what is
 * wrong), -1 (the error in ctx) when a local header disagrees with the directory: the
 * entry checks and the workers would read two archives out of one file. */
static int read_directory(cdm_ctx *ctx, const char *path, const struct extract_limits *limits,
                          struct zip_directory *d)
{
    struct error_sink quiet; /* a failure here is libarchive's to report */
    error_sink_init(&quiet, NULL);
    struct zip_in *r;
    uint64_t size;
    int ok = 0;
    if (!zip_in_open(error_sink_ctx(&quiet), path, limits->arriving, true, &r, &size)) {
        ok = zip_directory_read(error_sink_ctx(&quiet), r, size, (size_t)limits->max_entries, d);
        if (ok && zip_directory_check_locals(ctx, r, d, path) < 0) {
            zip_directory_free(d);
            ok = -1;
        }
        zip_in_close(r);
    }
    error_sink_free(&quiet);
    inflate_choose();
    return ok;
}

int zip_extract(cdm_ctx *ctx, const char *path, const char *dest,
                const struct extract_limits *limits, struct extract_result *result)
{
    struct plan plan = {0};
    struct walk w;
    walk_start(&w, ctx, path, dest, limits, result, plan_file, &plan);
    struct shared shared = {.path = path, .limits = limits};
    atomic_init(&shared.extracted, 0);
    atomic_init(&shared.stop, false);
    atomic_init(&shared.inflated_here, 0);
    struct hasher hasher;
    memset(&hasher, 0, sizeof(hasher));
    hasher.path = path;
    hasher.arriving = limits->arriving;
    error_sink_init(&hasher.sink, &ctx->interrupted);
    size_t made = limits->threads;
    made = made < 1 ? 1 : made > ZIP_WORKERS_MAX ? ZIP_WORKERS_MAX : made;
    struct worker *workers = xcalloc(made, sizeof(*workers));
    for (size_t k = 0; k < made; k++) {
        workers[k].shared = &shared;
        error_sink_init(&workers[k].sink, &ctx->interrupted);
    }
    struct zip_directory directory;
    int rc = walk_directory(&w, &plan);
    if (rc)
        goto out;
    int usable = read_directory(ctx, path, limits, &directory);
    if (usable < 0) {
        rc = CDM_EARCHIVE;
        goto out;
    }
    if (usable)
        shared.directory = &directory;
    size_t n = share(&plan, workers, made);
    if ((rc = run_all(ctx, workers, n, &hasher)))
        goto out;
    for (size_t i = 0; i < plan.count && !rc; i++) {
        struct job *j = &plan.jobs[i];
        struct db_file *f = &result->files[j->record];
        f->size = j->size;
        f->sha256 = walk_keep_string(result, j->sha256);
        f->mode = j->mode;
        result->extracted_size += j->size;
        if (j->keep)
            rc = walk_header_version(&w, j->rel, sb_str(&j->header), j->header.len);
    }
    if (rc || (rc = walk_finish(&w)))
        goto out;
    size_t here = atomic_load(&shared.inflated_here);
    if (here == plan.count)
        snprintf(result->unpacked_by, sizeof(result->unpacked_by),
                 "zip, %zu thread%s, all %zu files inflated by %s", n, n == 1 ? "" : "s", here,
                 inflate_engine());
    else
        snprintf(result->unpacked_by, sizeof(result->unpacked_by),
                 "zip, %zu thread%s, %zu of %zu files inflated by %s, %zu by libarchive", n,
                 n == 1 ? "" : "s", here, plan.count, inflate_engine(), plan.count - here);
    memcpy(result->sha256, hasher.sha256, sizeof(result->sha256));
    result->archive_size = hasher.size;
    if (ctx->options.progress)
        ctx->options.progress(ctx->options.callback_arg, hasher.size, hasher.size);
out:
    for (size_t k = 0; k < made; k++) {
        free(workers[k].mine);
        error_sink_free(&workers[k].sink);
    }
    free(workers);
    if (shared.directory)
        zip_directory_free(&directory);
    error_sink_free(&hasher.sink);
    for (size_t i = 0; i < plan.count; i++) {
        free(plan.jobs[i].raw);
        free(plan.jobs[i].rel);
        free(plan.jobs[i].full);
        sb_free(&plan.jobs[i].header);
    }
    free(plan.jobs);
    walk_free(&w);
    return rc;
}
