/* Project links on POSIX: symbolic links, switched by renaming a new link over the old. */
#include "fs.h"
#include "link.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One look at path, then its target. *changed: it stopped being a link in between (another
 * cdm switched or removed it), and nothing was set. */
static int link_read_once(cdm_ctx *ctx, const char *path, enum link_kind *kind, char **target,
                          bool *changed)
{
    *changed = false;
    switch (fs_kind(path)) {
    case FS_NONE:
        *kind = LINK_NONE;
        return CDM_OK;
    case FS_LINK:
        break;
    default:
        *kind = LINK_FOREIGN;
        return CDM_OK;
    }
    struct strbuf sb = STRBUF_INIT;
    for (size_t size = 256;; size *= 2) {
        char *buf = xmalloc(size);
        ssize_t n = readlink(path, buf, size);
        if (n < 0) {
            int e = errno;
            free(buf);
            sb_free(&sb);
            if (e == ENOENT || e == EINVAL) {
                *changed = true;
                return CDM_OK;
            }
            return cdm_error_errno(ctx, CDM_EIO, e, "cannot read link '%s'", path);
        }
        if ((size_t)n < size) {
            sb_addn(&sb, buf, (size_t)n);
            free(buf);
            break;
        }
        free(buf);
    }
    *kind = LINK_OURS;
    *target = sb_detach(&sb);
    return CDM_OK;
}

int link_read(cdm_ctx *ctx, const char *path, enum link_kind *kind, char **target)
{
    *target = NULL;
    /* Another cdm may switch or remove the link between the look and the read: then what is
     * there afterwards is read (a few times at most; each change is one rename or unlink). */
    bool changed = true;
    int rc = CDM_OK;
    for (int tries = 0; !rc && changed && tries < 4; tries++)
        rc = link_read_once(ctx, path, kind, target, &changed);
    if (!rc && changed)
        rc = cdm_error_set(ctx, CDM_EIO, "cannot read link '%s': it keeps changing", path);
    return rc;
}

static int refuse_foreign(cdm_ctx *ctx, const char *path)
{
    enum fs_kind k = fs_kind(path);
    return cdm_error_set(ctx, CDM_EEXISTS,
                         "cannot link '%s': it is a real %s, not a link; move it away or pass "
                         "another --name",
                         path, k == FS_DIR ? "folder" : "file");
}

int link_set(cdm_ctx *ctx, const char *path, const char *target)
{
    enum link_kind kind;
    char *old = NULL;
    int rc = link_read(ctx, path, &kind, &old);
    free(old);
    if (rc)
        return rc;
    if (kind == LINK_FOREIGN)
        return refuse_foreign(ctx, path);
    /* A temporary link beside it, then rename(2), which replaces a link atomically. */
    char *tmp = xasprintf("%s.cdm-%llu.tmp", path, (unsigned long long)getpid());
    unlink(tmp);
    if (symlink(target, tmp) != 0) {
        rc = cdm_error_os(ctx, CDM_EIO, "cannot create link '%s'", tmp);
    } else if (rename(tmp, path) != 0) {
        rc = cdm_error_os(ctx, CDM_EIO, "cannot put link '%s' in place", path);
        unlink(tmp);
    } else {
        char *dir = path_dirname(path);
        fs_sync_dir(dir);
        free(dir);
    }
    free(tmp);
    return rc;
}

int link_set_or_none(cdm_ctx *ctx, const char *path, const char *target, bool *none)
{
    *none = false; /* a symbolic link can always be tried; its failure is an error */
    return link_set(ctx, path, target);
}

int link_remove(cdm_ctx *ctx, const char *path)
{
    enum link_kind kind;
    char *old = NULL;
    int rc = link_read(ctx, path, &kind, &old);
    free(old);
    if (rc || kind == LINK_NONE)
        return rc;
    if (kind == LINK_FOREIGN)
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "cannot unlink '%s': it is a real folder or file, not a link cdm "
                             "made; it was left alone",
                             path);
    if (unlink(path) != 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot remove link '%s'", path);
    return CDM_OK;
}

bool link_same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int link_view_entry(cdm_ctx *ctx, const char *target, const char *path, bool dir)
{
    (void)dir; /* a symbolic link leads to either */
    return fs_symlink(ctx, target, path);
}
