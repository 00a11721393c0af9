/* Network volumes on Windows: a mapped drive or a UNC path is DRIVE_REMOTE. Cloud-synced
 * folders: OneDrive's variables, and placeholders' reparse tags and attributes. */
#include "fs_volume.h"
#include "fs.h"
#include "base/util.h"
#include "win32_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

/* The variables OneDrive's clients set to the folders they keep in sync. */
static const char *const sync_vars[] = {"OneDrive", "OneDriveCommercial", "OneDriveConsumer"};

#define TAG_CLOUD_MASK 0xFFFF0FFFu /* IO_REPARSE_TAG_CLOUD_1 ... _F differ in those bits */
#define TAG_CLOUD      0x9000001Au
/* FILE_ATTRIBUTE_RECALL_ON_OPEN, FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS */
#define ATTR_RECALL (0x00040000u | 0x00400000u)

/* Whether path is dir or below it, compared as Windows compares names (case ignored). */
static bool within(const char *path, const char *dir)
{
    wchar_t *p = win_wide(path), *d = win_wide(dir);
    bool in = false;
    if (p && d) {
        size_t n = wcslen(d);
        while (n > 3 && (d[n - 1] == L'\\' || d[n - 1] == L'/'))
            n--; /* "C:\OneDrive\" is "C:\OneDrive"; "C:\" stays */
        in = n && wcslen(p) >= n &&
             CompareStringOrdinal(p, (int)n, d, (int)n, TRUE) == CSTR_EQUAL &&
             (!p[n] || p[n] == L'\\' || p[n] == L'/' || d[n - 1] == L'\\');
    }
    free(p);
    free(d);
    return in;
}

/* A cloud placeholder at w (a file or folder): its reparse tag, or its recall attributes. */
static bool placeholder(const wchar_t *w, unsigned long *tag)
{
    DWORD attrs = GetFileAttributesW(w);
    *tag = 0;
    if (attrs == INVALID_FILE_ATTRIBUTES)
        return false;
    if (attrs & FILE_ATTRIBUTE_REPARSE_POINT) {
        WIN32_FIND_DATAW fd;
        HANDLE h = FindFirstFileW(w, &fd); /* dwReserved0: the reparse tag */
        if (h != INVALID_HANDLE_VALUE) {
            FindClose(h);
            *tag = fd.dwReserved0;
        }
    }
    return (*tag & TAG_CLOUD_MASK) == TAG_CLOUD || (attrs & ATTR_RECALL);
}

char *fs_cloud_sync(const char *path)
{
    for (size_t i = 0; i < sizeof(sync_vars) / sizeof(*sync_vars); i++) {
        char *dir = fs_getenv(sync_vars[i]);
        char *how = dir && *dir && within(path, dir)
                        ? xasprintf("inside the OneDrive folder '%s' (%%%s%%)", dir, sync_vars[i])
                        : NULL;
        free(dir);
        if (how)
            return how;
    }
    /* Each folder from path upwards, to the drive's root (which FindFirstFileW cannot name). */
    char *how = NULL;
    char *dir = xstrdup(path);
    for (;;) {
        wchar_t *w = win_wide(dir);
        unsigned long tag = 0;
        bool cloud = w && placeholder(w, &tag);
        free(w);
        if (cloud) {
            how = tag ? xasprintf("in a cloud-synced folder: '%s' is a cloud placeholder "
                                  "(reparse tag 0x%08lX)",
                                  dir, tag)
                      : xasprintf("in a cloud-synced folder: '%s' is a cloud placeholder", dir);
            break;
        }
        char *parent = path_dirname(dir);
        bool top = !strcmp(parent, dir) || strlen(parent) <= 3;
        free(dir);
        dir = parent;
        if (top)
            break;
    }
    free(dir);
    return how;
}

bool fs_volume_is_network(const char *path, char *kind, size_t kind_size)
{
    wchar_t *wide = win_wide(path);
    wchar_t volume[MAX_PATH + 1], fs[MAX_PATH + 1];
    /* GetVolumePathNameW needs no existing file: it walks the path's text to its root. */
    bool remote =
        wide && GetVolumePathNameW(wide, volume, MAX_PATH) && GetDriveTypeW(volume) == DRIVE_REMOTE;
    free(wide);
    if (!remote)
        return false;
    char *name = GetVolumeInformationW(volume, NULL, 0, NULL, NULL, NULL, fs, MAX_PATH)
                     ? win_narrow(fs)
                     : NULL;
    char text[128];
    snprintf(text, sizeof(text), "network drive (%s)", name ? name : "file system unknown");
    free(name);
    if (!copy_str(kind, kind_size, text))
        kind[0] = '\0';
    return true;
}
