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
