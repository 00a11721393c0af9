/* A download in progress on POSIX: see partial.h. */
#include "partial.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct fs_partial {
    int fd;
    char *path;
    uint64_t size;
};

int fs_partial_open(cdm_ctx *ctx, const char *path, bool wait, struct fs_partial **out,
                    uint64_t *size)
{
    *out = NULL;
    for (;;) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
        if (fd < 0)
            return cdm_error_os(ctx, CDM_EIO, "cannot open '%s'", path);
        int r;
        while ((r = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR)
            ;
        if (r != 0) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK)
                return CDM_EBUSY;
            return cdm_error_errno(ctx, CDM_EIO, e, "cannot lock '%s'", path);
        }
        struct stat held, named;
        if (fstat(fd, &held) != 0) {
            int e = errno;
            close(fd);
            return cdm_error_errno(ctx, CDM_EIO, e, "cannot read '%s'", path);
        }
        if (lstat(path, &named) != 0 || held.st_ino != named.st_ino ||
            held.st_dev != named.st_dev) {
            close(fd); /* renamed or deleted by the holder we waited for */
            continue;
        }
        /* O_NOFOLLOW stops a symbolic link only: a hard link to a file elsewhere would be
         * truncated and written as the download goes */
        if (!S_ISREG(held.st_mode) || held.st_nlink != 1) {
            close(fd);
            return cdm_error_set(
                ctx, CDM_EIO,
                "cannot use '%s': it is %s, not a download of cdm's own; move "
                "it away, then run the command again",
                path, S_ISREG(held.st_mode) ? "a hard link to another file" : "no regular file");
        }
        struct fs_partial *p = xmalloc(sizeof(*p));
        p->fd = fd;
        p->path = xstrdup(path);
        p->size = (uint64_t)held.st_size;
        *size = p->size;
        *out = p;
        return CDM_OK;
    }
}

long long fs_partial_read(cdm_ctx *ctx, struct fs_partial *p, uint64_t offset, void *buf, size_t n)
{
    ssize_t got;
    while ((got = pread(p->fd, buf, n, (off_t)offset)) < 0 && errno == EINTR)
        ;
    if (got < 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot read '%s'", p->path);
    return got;
}

int fs_partial_append(cdm_ctx *ctx, struct fs_partial *p, const void *buf, size_t n)
{
    const char *c = buf;
    while (n > 0) {
        ssize_t w = pwrite(p->fd, c, n, (off_t)p->size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? cdm_error_os(ctx, CDM_EIO, "cannot write '%s'", p->path)
                         : cdm_error_set(ctx, CDM_EIO, "cannot write '%s': nothing was written",
                                         p->path);
        c += w;
        n -= (size_t)w;
        p->size += (uint64_t)w;
    }
    return CDM_OK;
}

int fs_partial_truncate(cdm_ctx *ctx, struct fs_partial *p)
{
    if (ftruncate(p->fd, 0) != 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot truncate '%s'", p->path);
    p->size = 0;
    return CDM_OK;
}

int fs_partial_sync(cdm_ctx *ctx, struct fs_partial *p)
{
    if (fsync(p->fd) != 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot write '%s' to disk", p->path);
    return CDM_OK;
}

uint64_t fs_partial_size(const struct fs_partial *p)
{
    return p->size;
}

void fs_partial_close(struct fs_partial *p)
{
    if (!p)
        return;
    close(p->fd); /* releases the flock */
    free(p->path);
    free(p);
}
