/* A user's own state files, and writing a text file all at once. */
#include "userstate.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

#define STATE_MAX (64 * 1024)

char *userstate_dir(const cdm_ctx *ctx)
{
    return path_dirname(ctx->state_path);
}

char *userstate_path(const cdm_ctx *ctx, const char *name)
{
    char *dir = userstate_dir(ctx);
    char *path = path_join(dir, name);
    free(dir);
    return path;
}

int userstate_read(cdm_ctx *ctx, const char *name, struct strbuf *text)
{
    char *path = userstate_path(ctx, name);
    /* a link (or a fifo) where cdm keeps its file is refused, never read through */
    int rc = fs_kind(path) == FS_NONE ? CDM_ENOTFOUND : store_own_file(ctx, path);
    if (!rc)
        rc = fs_read_regular(ctx, path, STATE_MAX, text);
    free(path);
    return rc;
}

char *userstate_get(const char *text, const char *key)
{
    return text_key_value(text, key, false);
}

int userstate_write(cdm_ctx *ctx, const char *name, const char *text)
{
    char *dir = userstate_dir(ctx);
    char *path = path_join(dir, name);
    int rc = CDM_OK;
    if (!text)
        rc = fs_kind(path) == FS_NONE ? CDM_OK : fs_remove_file(ctx, path);
    else if (!(rc = fs_mkdir_p(ctx, dir)))
        rc = text_file_write(ctx, path, text);
    free(path);
    free(dir);
    return rc;
}

int text_file_write(cdm_ctx *ctx, const char *path, const char *text)
{
    /* Refused here; a link made after this look is replaced by the rename, never written
     * through. */
    int rc = store_own_file(ctx, path);
    return rc ? rc : fs_atomic_write_whole(ctx, path, text, strlen(text));
}

int text_file_write_through(cdm_ctx *ctx, const char *path, const char *text)
{
    char *real = fs_kind(path) == FS_LINK ? fs_realpath(path) : NULL;
    int rc = fs_atomic_write_whole(ctx, real ? real : path, text, strlen(text));
    free(real);
    return rc;
}
