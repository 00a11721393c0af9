/* The store's read-only folders on POSIX: no write bits (fs.h, fs_seal_tree). */
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder name in parent (opened without following a link) and every folder below it
 * lose their write bits. */
static int seal_at(cdm_ctx *ctx, int parent, const char *name, const char *shown)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot open folder '%s'", shown);
    DIR *dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        return cdm_error_os(ctx, CDM_EIO, "cannot read folder '%s'", shown);
    }
    int rc = CDM_OK;
    struct dirent *de;
    while (!rc && (de = readdir(dir))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
            continue;
        char *child = path_join(shown, de->d_name);
        rc = seal_at(ctx, dirfd(dir), de->d_name, child);
        free(child);
    }
    struct stat st;
    if (!rc && (fstat(dirfd(dir), &st) != 0 || fchmod(dirfd(dir), st.st_mode & 07555) != 0))
        rc = cdm_error_os(ctx, CDM_EIO, "cannot make folder '%s' read-only", shown);
    closedir(dir);
    return rc;
}

int fs_seal_tree(cdm_ctx *ctx, const char *dir)
{
    return seal_at(ctx, AT_FDCWD, dir, dir);
}

int fs_dir_set_writable(cdm_ctx *ctx, const char *dir, bool writable)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot inspect '%s'", dir);
    if (!S_ISDIR(st.st_mode))
        return cdm_error_set(ctx, CDM_EIO, "cannot change '%s': it is not a folder", dir);
    mode_t mode = writable ? (st.st_mode & 07777) | S_IWUSR : st.st_mode & 07555;
    if (mode != (st.st_mode & 07777) && chmod(dir, mode) != 0)
        return cdm_error_os(ctx, CDM_EIO, "cannot change the permissions of '%s'", dir);
    return CDM_OK;
}

int fs_file_read_only(const char *path)
{
    (void)path; /* the write bits, compared as the file's mode (fs_file_mode) */
    return -1;
}
