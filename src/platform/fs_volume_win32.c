/* Network volumes on Windows: a mapped drive or a UNC path is DRIVE_REMOTE. */
#include "fs_volume.h"
#include "base/util.h"
#include "win32_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

bool fs_volume_is_network(const char *path, char *kind, size_t kind_size)
{
    wchar_t *wide = win_wide(path);
    wchar_t volume[MAX_PATH + 1], fs[MAX_PATH + 1];
    /* GetVolumePathNameW needs no existing file: it walks the path's text to its root. */
    bool remote = wide && GetVolumePathNameW(wide, volume, MAX_PATH) &&
                  GetDriveTypeW(volume) == DRIVE_REMOTE;
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
