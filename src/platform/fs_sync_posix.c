/* An install's files made durable on POSIX systems (fs.h, fs_sync_written). */
#define _GNU_SOURCE /* glibc declares syncfs only beyond POSIX.1-2008 */
#include "fs.h"
#include "thread.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
/* How many fsyncs are in flight at once: concurrent fsyncs on ext4 share journal commits and
 * the block layer merges their cache flushes, where one after the other each pays its own
 * (5,000 files: 4.1 s one by one, 0.52 s from 8 threads, 0.42 s from 16). */
#define SYNC_THREADS 16
/* An fsync each costs about 90 us an entry from SYNC_THREADS threads, a syncfs about the
 * time to write what the whole system has pending (2 GB: 0.73 s): past this many pending
 * bytes an entry, the syncfs waits longer (docs/performance.md, "Waiting for its own
 * writes only"). */
#define SYNCFS_BYTES_PER_ENTRY (256ull << 10)

/* The install's files and folders, relative to its top folder. */
struct sync_list {
    char **paths;
    size_t n, cap;
};

static void list_add(struct sync_list *l, char *path)
{
    if (l->n == l->cap)
        l->paths = xrealloc(l->paths, (l->cap = l->cap ? l->cap * 2 : 64) * sizeof(*l->paths));
    l->paths[l->n++] = path;
}

static void list_free(struct sync_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
}

/* Lists every file and folder below the open folder fd (at rel below the top), links left
 * out (a link is an entry of its folder, made durable with it). 0 or -errno. */
static int list_at(int fd, const char *rel, struct sync_list *l)
{
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        int e = errno;
        if (dup_fd >= 0)
            close(dup_fd);
        return -e;
    }
    rewinddir(d); /* the duplicate shares the offset of a folder read before */
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            rc = -errno;
        if (rc || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
            continue;
        char *path = rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
        if (S_ISDIR(st.st_mode)) {
            int child = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            rc = child < 0 ? -errno : list_at(child, path, l);
            if (child >= 0)
                close(child);
        }
        list_add(l, path);
    }
    closedir(d);
    return rc;
}

/* One thread's share of the fsyncs: every step-th entry from first. */
struct sync_share {
    int top;
    const struct sync_list *l;
    size_t first, step;
    size_t failed; /* the entry that failed, for the message */
};

static int sync_share_main(void *arg)
{
    struct sync_share *s = arg;
    for (size_t i = s->first; i < s->l->n; i += s->step) {
        int fd = openat(s->top, s->l->paths[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        int rc = fd < 0 || fsync(fd) != 0 ? -errno : 0;
        if (fd >= 0)
            close(fd);
        if (rc) {
            s->failed = i;
            return rc;
        }
    }
    return 0;
}

/* fsync every entry of l from up to threads threads at once (1: one after the other, in
 * this thread); a share whose thread the system refuses is run here. */
static int sync_each(cdm_ctx *ctx, const char *dir, int top, const struct sync_list *l,
                     unsigned threads)
{
    struct sync_share share[SYNC_THREADS];
    struct thread *t[SYNC_THREADS] = {NULL};
    unsigned k = threads < 1 ? 1 : threads > SYNC_THREADS ? SYNC_THREADS : threads;
    if (k > l->n)
        k = l->n ? (unsigned)l->n : 1;
    for (unsigned i = 0; i < k; i++) {
        share[i] = (struct sync_share){top, l, i, k, 0};
        t[i] = i ? thread_start(sync_share_main, &share[i]) : NULL;
    }
    int rc = 0, failed = -1;
    for (unsigned i = 0; i < k; i++) {
        int r = t[i] ? thread_join(t[i]) : sync_share_main(&share[i]);
        if (r && !rc) {
            rc = r;
            failed = (int)i;
        }
    }
    if (rc)
        return cdm_error_errno(ctx, CDM_EIO, -rc, "cannot flush '%s/%s' to disk", dir,
                               l->paths[share[failed].failed]);
    return CDM_OK;
}

/* The bytes the system has yet to write to its disks, from /proc/meminfo (Dirty: and
 * Writeback:); unknown (no /proc) counts as too many for a syncfs. */
static unsigned long long pending_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return ULLONG_MAX;
    char line[256];
    unsigned long long sum = 0, kb;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "Dirty: %llu kB", &kb) == 1 ||
            sscanf(line, "Writeback: %llu kB", &kb) == 1)
            sum += kb * 1024;
    fclose(f);
    return sum;
}

enum sync_way { SYNC_AUTO, SYNC_PARALLEL, SYNC_SERIAL, SYNC_FS };

/* CDM_SYNC_WAY forces a way, for the benchmark (tests/bench/sync.sh) and the tests of each
 * way: "parallel", "serial" (an fsync each, one after the other: the way before) or
 * "syncfs"; anything else, or nothing, lets the install's size choose. */
static enum sync_way sync_way(const struct sync_list *l)
{
    static const char *const names[] = {"", "parallel", "serial", "syncfs"};
    const char *v = getenv("CDM_SYNC_WAY");
    for (int i = 1; v && i < (int)(sizeof(names) / sizeof(*names)); i++)
        if (!strcmp(v, names[i]))
            return (enum sync_way)i;
    /* The install's own data still pending counts against the syncfs too: an fsync each
     * waits for it as well, so the rule errs towards an fsync each. */
    return pending_bytes() <= l->n * SYNCFS_BYTES_PER_ENTRY ? SYNC_FS : SYNC_PARALLEL;
}

int fs_sync_written(cdm_ctx *ctx, const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot flush '%s' to disk", dir);
    struct sync_list l = {0};
    int rc = list_at(fd, NULL, &l);
    if (rc < 0) {
        rc = cdm_error_errno(ctx, CDM_EIO, -rc, "cannot flush '%s' to disk", dir);
        goto out;
    }
    enum sync_way way = sync_way(&l);
    if (way == SYNC_FS) { /* the whole file system at once: files, folders and their names */
        if (syncfs(fd) != 0)
            rc = cdm_error_os(ctx, CDM_EIO, "cannot flush '%s' to disk", dir);
        goto out;
    }
    rc = sync_each(ctx, dir, fd, &l, way == SYNC_SERIAL ? 1 : SYNC_THREADS);
    if (!rc && fsync(fd) != 0) /* the folder itself last */
        rc = cdm_error_os(ctx, CDM_EIO, "cannot flush '%s' to disk", dir);
out:
    list_free(&l);
    close(fd);
    return rc;
}
#else
int fs_sync_written(cdm_ctx *ctx, const char *dir)
{
    (void)ctx;
    fs_sync_dir(dir); /* the files were flushed as they were closed */
    return CDM_OK;
}
#endif
