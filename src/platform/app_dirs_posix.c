/* Other programs' folders and cdm's own file on POSIX (app_dirs.h). */
#include "app_dirs.h"
#include "fs.h"

#include <stdlib.h>

char *app_jupyter_data_dir(void)
{
    const char *given = getenv("JUPYTER_DATA_DIR");
    if (given && *given)
        return xstrdup(given);
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && xdg[0] == '/')
        return path_join(xdg, "jupyter");
    const char *home = getenv("HOME");
    char *base = path_join(home && *home ? home : "/", ".local/share");
    char *dir = path_join(base, "jupyter");
    free(base);
    return dir;
}

char *app_self_path(void)
{
    return fs_realpath("/proc/self/exe");
}
