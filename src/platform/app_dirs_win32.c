/* Other programs' folders and cdm's own file on Windows (app_dirs.h). */
#include "app_dirs.h"
#include "fs.h"
#include "win32_util.h"

#include <stdlib.h>
#include <windows.h>

char *app_jupyter_data_dir(void)
{
    char *given = fs_getenv("JUPYTER_DATA_DIR");
    if (given && *given)
        return given;
    free(given);
    char *appdata = fs_getenv("APPDATA");
    char *dir = path_join(appdata && *appdata ? appdata : "C:\\", "jupyter");
    free(appdata);
    return dir;
}

char *app_downloads_dir(void)
{
    char *home = fs_getenv("USERPROFILE");
    char *dir = home && *home ? path_join(home, "Downloads") : NULL;
    free(home);
    return dir;
}

char *app_self_path(void)
{
    wchar_t buf[32768];
    DWORD n = GetModuleFileNameW(NULL, buf, (DWORD)(sizeof(buf) / sizeof(*buf)));
    if (n == 0 || n >= sizeof(buf) / sizeof(*buf))
        return NULL;
    return win_narrow(buf);
}
