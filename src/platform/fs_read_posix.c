/* Reading files on POSIX systems: sequentially (archives, another store's files) and whole
 * (small files a user or a repository controls), never blocking on what is not a file. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_DIRECTORY and posix_fadvise from glibc */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_name(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a fifo"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISDIR(mode)  ? "a folder"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

int fs_read_regular(cdm_ctx *ctx, const char *path, size_t max, struct strbuf *out)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? cdm_error_set(ctx, CDM_ENOTFOUND, "'%s': no such file", path)
                   : cdm_error_os(ctx, CDM_EIO, "cannot read '%s'", path);
    bool link = S_ISLNK(st.st_mode);
    if (link && stat(path, &st) != 0)
        return cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it is a link to nothing (%s)", path,
                             strerror(errno));
    if (!S_ISREG(st.st_mode))
        return cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it is %s%s", path,
                             link ? "a link to " : "", kind_name(st.st_mode));
    if ((unsigned long long)st.st_size > max)
        return cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it is %lld bytes, more than %zu",
                             path, (long long)st.st_size, max);
    /* O_NONBLOCK: a fifo swapped in after the stat is not waited on either. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot read '%s'", path);
    int rc = CDM_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it changed while cdm read it", path);
        goto out;
    }
    char buf[4096];
    size_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = cdm_error_os(ctx, CDM_EIO, "cannot read '%s'", path);
            break;
        }
        if (n == 0)
            break;
        if ((total += (size_t)n) > max) {
            rc = cdm_error_set(ctx, CDM_EIO, "cannot read '%s': it is more than %zu bytes", path,
                               max);
            break;
        }
        sb_addn(out, buf, (size_t)n);
    }
out:
    close(fd);
    return rc;
}

struct fs_reader {
    int fd;
    char *path;
};

int fs_reader_open(cdm_ctx *ctx, const char *path, struct fs_reader **out, uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC); /* a fifo: no wait */
    if (fd < 0)
        return cdm_error_os(ctx, errno == ENOENT ? CDM_ENOTFOUND : CDM_EIO, "cannot open '%s'",
                            path);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cdm_error_set(ctx, CDM_EINVAL, "cannot read '%s': not a regular file", path);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    struct fs_reader *r = xmalloc(sizeof(*r));
    r->fd = fd;
    r->path = xstrdup(path);
    *out = r;
    if (size)
        *size = (uint64_t)st.st_size;
    return CDM_OK;
}

/* rel's part that failed: "'lib' in 'lib/x.so'" reads better than the errno alone. */
static int below_failed(cdm_ctx *ctx, int fd, const char *dir, const char *rel, size_t len, int e)
{
    const char *name = rel + len;
    while (name > rel && name[-1] != '/')
        name--;
    size_t n = (size_t)(rel + len - name);
    char part[NAME_MAX + 1];
    struct stat st;
    bool link = (e == ELOOP || e == ENOTDIR) && n < sizeof(part);
    if (link) {
        memcpy(part, name, n);
        part[n] = '\0';
        link = fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    }
    const char *why = link ? "is a link" : e == ENOTDIR ? "is no folder" : strerror(e);
    return cdm_error_set(ctx, e == ENOENT ? CDM_ENOTFOUND : CDM_EIO,
                         "cannot read '%s/%s': '%.*s' %s; cdm follows no link in that tree", dir,
                         rel, (int)len, rel, why);
}

int fs_reader_open_below(cdm_ctx *ctx, const char *dir, const char *rel, struct fs_reader **out,
                         uint64_t *size)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cdm_error_os(ctx, errno == ENOENT ? CDM_ENOTFOUND : CDM_EIO,
                            "cannot open folder '%s'", dir);
    int rc = CDM_OK;
    const char *part = rel;
    for (const char *slash; (slash = strchr(part, '/')); part = slash + 1) {
        char name[NAME_MAX + 1];
        size_t n = (size_t)(slash - rel);
        if ((size_t)(slash - part) > NAME_MAX) {
            rc = below_failed(ctx, fd, dir, rel, n, ENAMETOOLONG);
            goto out;
        }
        memcpy(name, part, (size_t)(slash - part));
        name[slash - part] = '\0';
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            rc = below_failed(ctx, fd, dir, rel, n, errno);
            goto out;
        }
        close(fd);
        fd = next;
    }
    int file = openat(fd, part, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (file < 0) {
        rc = below_failed(ctx, fd, dir, rel, strlen(rel), errno);
        goto out;
    }
    struct stat st = {0};
    if (fstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(file);
        rc = cdm_error_set(ctx, CDM_EIO, "cannot read '%s/%s': it is %s", dir, rel,
                           kind_name(st.st_mode));
        goto out;
    }
    struct fs_reader *r = xmalloc(sizeof(*r));
    r->fd = file;
    r->path = path_join(dir, rel);
    *out = r;
    if (size)
        *size = (uint64_t)st.st_size;
out:
    close(fd);
    return rc;
}

long long fs_reader_read(cdm_ctx *ctx, struct fs_reader *r, void *buf, size_t n)
{
    for (;;) {
        ssize_t got = read(r->fd, buf, n);
        if (got >= 0)
            return got;
        if (errno != EINTR)
            return cdm_error_os(ctx, CDM_EIO, "cannot read '%s'", r->path);
    }
}

long long fs_reader_seek(cdm_ctx *ctx, struct fs_reader *r, long long offset, int whence)
{
    static const int whences[] = {SEEK_SET, SEEK_CUR, SEEK_END};
    off_t at = lseek(r->fd, (off_t)offset, whences[whence < 0 || whence > 2 ? 0 : whence]);
    if (at < 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot seek in '%s'", r->path);
    return (long long)at;
}

void fs_reader_close(struct fs_reader *r)
{
    if (!r)
        return;
    close(r->fd);
    free(r->path);
    free(r);
}

FILE *fs_fopen_read(const char *path)
{
    /* O_NONBLOCK: a fifo is opened without waiting for a writer, then refused */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0)
        f = fdopen(fd, "rb");
    if (!f)
        close(fd);
    return f;
}
