/* Other programs' folders and cdm's own file on POSIX (app_dirs.h). */
#include "app_dirs.h"
#include "fs.h"
#include "posix_util.h"

#include <stdlib.h>

char *app_jupyter_data_dir(void)
{
    const char *given = getenv("JUPYTER_DATA_DIR");
    if (given && *given)
        return xstrdup(given);
    return posix_xdg_dir("XDG_DATA_HOME", ".local/share", "jupyter");
}

char *app_downloads_dir(void)
{
    const char *home = getenv("HOME");
    return home && *home ? path_join(home, "Downloads") : NULL;
}

char *app_self_path(void)
{
    return fs_realpath("/proc/self/exe");
}
