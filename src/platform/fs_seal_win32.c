/* The store's read-only files and folders on Windows (fs.h): a file's read-only attribute;
 * a folder's has no such meaning, so folders are left as they are. */
#include "fs.h"
#include "win32_util.h"

#include <stdlib.h>
#include <windows.h>

int fs_file_create_read_only(cdm_ctx *ctx, const char *path, bool executable, struct fs_file **out)
{
    int rc = fs_file_create(ctx, path, executable, out);
    if (rc)
        return rc;
    /* the attribute is checked when a file is opened: the handle just made still writes,
     * as the C runtime's _open(O_CREAT, _S_IREAD) relies on */
    wchar_t *w = win_path(path);
    BOOL set = SetFileAttributesW(w, FILE_ATTRIBUTE_READONLY);
    DWORD e = GetLastError();
    free(w);
    if (!set) {
        fs_file_abort(*out);
        *out = NULL;
        return win_error(ctx, CDM_EIO, e, "cannot make '%s' read-only", path);
    }
    return CDM_OK;
}

int fs_seal_tree(cdm_ctx *ctx, const char *dir)
{
    (void)ctx;
    (void)dir;
    return CDM_OK;
}

int fs_dir_set_writable(cdm_ctx *ctx, const char *dir, bool writable)
{
    (void)ctx;
    (void)dir;
    (void)writable;
    return CDM_OK;
}
