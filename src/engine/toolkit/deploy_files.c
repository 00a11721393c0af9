/* Placing, keeping and restoring a deploy's files (deploy_files.h). */
#include "deploy_files.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "platform/sha256.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK (256 * 1024)

/* Read from, feeding each block to the hash and (when out is not NULL) to out. */
static int pump(cdm_ctx *ctx, const char *from, struct fs_atomic *out, char hex[65])
{
    struct fs_reader *r = NULL;
    uint64_t size;
    int rc = fs_reader_open(ctx, from, &r, &size);
    if (rc)
        return rc;
    struct sha256 *h = sha256_new();
    char *buf = xmalloc(BLOCK);
    long long n;
    while ((n = fs_reader_read(ctx, r, buf, BLOCK)) > 0) {
        sha256_update(h, buf, (size_t)n);
        if (out && (rc = fs_atomic_write(ctx, out, buf, (size_t)n)))
            break;
    }
    if (n < 0)
        rc = CDM_EIO;
    if (!rc && hex)
        sha256_finish_hex(h, hex);
    free(buf);
    sha256_free(h);
    fs_reader_close(r);
    return rc;
}

int deploy_hash(cdm_ctx *ctx, const char *path, char hex[65])
{
    return pump(ctx, path, NULL, hex);
}

static char *tmp_beside(const char *path)
{
    return xasprintf("%s.cdm-%llu.tmp", path, (unsigned long long)fs_process_id());
}

int deploy_copy(cdm_ctx *ctx, const char *from, const char *to, bool executable, char hex[65])
{
    struct fs_atomic *f = NULL;
    int rc = fs_atomic_open(ctx, to, executable, &f);
    if (!rc && (rc = pump(ctx, from, f, hex)))
        fs_atomic_abort(ctx, f);
    else if (!rc)
        rc = fs_atomic_commit(ctx, f);
    return rc;
}

int deploy_link(cdm_ctx *ctx, const char *target, const char *path)
{
    char *tmp = tmp_beside(path);
    int rc = fs_kind(tmp) == FS_NONE ? CDM_OK : fs_remove_file(ctx, tmp);
    if (!rc && !(rc = fs_symlink(ctx, target, tmp)) && (rc = fs_rename(ctx, tmp, path)))
        fs_remove_file(ctx, tmp);
    free(tmp);
    return rc;
}

int deploy_keep(cdm_ctx *ctx, const char *path, const char *sha256)
{
    char *dir = store_deployed_dir(ctx), *obj = store_deployed_object(ctx, sha256);
    char check[65];
    int rc = CDM_OK;
    if (fs_kind(obj) != FS_FILE && !(rc = store_own_dir(ctx, dir, true)) &&
        !(rc = deploy_copy(ctx, path, obj, false, check)) && strcmp(check, sha256))
        rc = cdm_error_set(ctx, CDM_EIO, "cannot keep '%s': it changed while it was copied", path);
    free(obj);
    free(dir);
    return rc;
}

/* A kill during a copy leaves <name>.cdm-<pid>.tmp (or a write probe) beside the file:
 * ours to remove, so that the toolkit comes back as it was. */
static int remove_leftovers(cdm_ctx *ctx, const char *dest)
{
    char *dir = path_dirname(dest);
    const char *base = path_basename(dest);
    char *prefix = xasprintf("%s.cdm-", base);
    char **names = NULL;
    int rc = fs_list_dir(ctx, dir, &names);
    for (char **n = names; !rc && n && *n; n++) {
        if (!str_starts_with(*n, prefix) ||
            !(str_ends_with(*n, ".tmp") || strstr(*n, ".cdm-probe-")))
            continue;
        char *path = path_join(dir, *n);
        if (fs_kind(path) == FS_FILE || fs_kind(path) == FS_LINK)
            rc = fs_remove_file(ctx, path);
        free(path);
    }
    strv_free(names);
    free(prefix);
    free(dir);
    return rc == CDM_ENOTFOUND ? CDM_OK : rc;
}

/* One file back as it was: gone when it was not there, else its kept content or link. */
static int restore_file(cdm_ctx *ctx, const struct db_deploy *d, const struct db_deploy_file *f)
{
    char *dest = path_join(d->toolkit, f->path);
    char *obj = NULL;
    int rc = remove_leftovers(ctx, dest);
    if (rc || !strcmp(f->before_kind, "none")) {
        if (!rc && fs_kind(dest) != FS_NONE)
            rc = fs_remove_file(ctx, dest);
    } else if (!strcmp(f->before_kind, "link")) {
        rc = deploy_link(ctx, f->before_link, dest);
    } else {
        char *dir = store_deployed_dir(ctx);
        obj = store_deployed_object(ctx, f->before_sha256);
        int own = store_own_dir(ctx, dir, false);
        free(dir);
        if (own && own != CDM_ENOTFOUND)
            rc = own;
        else if (fs_kind(obj) != FS_FILE)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "cannot put back '%s': its kept copy '%s' is missing", dest, obj);
        else
            rc = deploy_copy(ctx, obj, dest, f->before_mode > 0 && (f->before_mode & 0111), NULL);
    }
    free(obj);
    free(dest);
    return rc;
}

/* The kept files no deploy needs any more. */
static int prune(cdm_ctx *ctx, const struct db_deploy_file *files, size_t n)
{
    int rc = CDM_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        bool kept = false;
        if (strcmp(files[i].before_kind, "file") ||
            (rc = db_deploy_keeps(ctx, files[i].before_sha256, &kept)) || kept)
            continue;
        char *obj = store_deployed_object(ctx, files[i].before_sha256);
        if (fs_kind(obj) == FS_FILE)
            rc = fs_remove_file(ctx, obj);
        free(obj);
    }
    return rc;
}

int deploy_restore(cdm_ctx *ctx, const struct db_deploy *d)
{
    struct db_deploy_file *files = NULL;
    size_t n = 0;
    int rc = db_deploy_set_state(ctx, d->id, "undoing");
    if (!rc)
        rc = db_deploy_files(ctx, d->id, &files, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = restore_file(ctx, d, &files[i]);
        if (!rc && i == 0)
            fs_crash_point("deploy-undo-file");
    }
    if (!rc)
        fs_sync_dir(d->toolkit);
    if (!rc)
        rc = db_deploy_delete(ctx, d->id);
    if (!rc)
        rc = prune(ctx, files, n);
    free(files);
    return rc;
}

/* Kept files no deploy records: a kill between keeping a file and recording the deploy. */
static int prune_unrecorded(cdm_ctx *ctx, unsigned *done)
{
    char *dir = store_deployed_dir(ctx);
    char **names = NULL;
    int rc = store_own_dir(ctx, dir, false); /* never deleting below a link */
    if (!rc)
        rc = fs_list_dir(ctx, dir, &names);
    if (rc == CDM_ENOTFOUND)
        rc = CDM_OK;
    for (char **n = names; !rc && n && *n; n++) {
        bool kept = false;
        if ((rc = db_deploy_keeps(ctx, *n, &kept)) || kept)
            continue;
        char *path = path_join(dir, *n);
        if (!(rc = fs_remove_file(ctx, path)))
            (*done)++;
        free(path);
    }
    strv_free(names);
    free(dir);
    return rc;
}

int deploy_recover(cdm_ctx *ctx, unsigned *done)
{
    struct db_deploy *v = NULL;
    size_t n = 0;
    int rc = db_deploy_unsettled(ctx, &v, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = deploy_restore(ctx, &v[i]);
        if (!rc) {
            cdm_warn(ctx, "an interrupted deploy of %s into '%s' was undone", v[i].install_id,
                     v[i].toolkit);
            (*done)++;
        }
    }
    free(v);
    return rc ? rc : prune_unrecorded(ctx, done);
}
