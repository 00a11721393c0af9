/* cdm exec on Windows: the sitecustomize.py that gives Python programs the DLL folders. */
#include "exec_python.h"
#include "platform/fs.h"
#include "userstate.h"

#include <stdlib.h>
#include <string.h>

/* The whole file; a change here is a new file written over the old one at the next exec. */
static const char sitecustomize[] =
    "# Written by cdm for 'cdm exec' on Windows, which puts this folder first on PYTHONPATH\n"
    "# and names the project's DLL folders in CDM_DLL_DIRECTORIES (separated by ';').\n"
    "# Python 3.8 and later load the DLLs of extension modules only from folders given to\n"
    "# os.add_dll_directory, never from PATH. The sitecustomize this file hides (the\n"
    "# environment's own, if any) is run after it.\n"
    "import os\n"
    "import sys\n"
    "\n"
    "\n"
    "def _cdm_add_dll_directories():\n"
    "    add = getattr(os, 'add_dll_directory', None)\n"
    "    for folder in os.environ.get('CDM_DLL_DIRECTORIES', '').split(';'):\n"
    "        if add and folder and os.path.isdir(folder):\n"
    "            add(folder)\n"
    "            # cuDNN opens its sub-libraries with the standard search, on PATH\n"
    "            path = os.environ.get('PATH', '')\n"
    "            if folder not in path.split(';'):\n"
    "                os.environ['PATH'] = folder + ';' + path\n"
    "\n"
    "\n"
    "def _cdm_run_hidden_sitecustomize():\n"
    "    here = os.path.normcase(os.path.dirname(os.path.abspath(__file__)))\n"
    "    sys.path[:] = [p for p in sys.path\n"
    "                   if os.path.normcase(os.path.abspath(p or os.curdir)) != here]\n"
    "    ours = sys.modules.pop('sitecustomize', None)\n"
    "    try:\n"
    "        import sitecustomize  # noqa: F401 (the environment's own)\n"
    "    except ImportError as e:\n"
    "        if e.name != 'sitecustomize':\n"
    "            raise\n"
    "        sys.modules['sitecustomize'] = ours\n"
    "\n"
    "\n"
    "_cdm_add_dll_directories()\n"
    "_cdm_run_hidden_sitecustomize()\n";

/* cdm's sitecustomize.py in dir, written unless it holds these bytes; a link or anything
 * but a folder and a regular file there is refused. */
static int write_sitecustomize(cdm_ctx *ctx, const char *dir)
{
    char *path = path_join(dir, "sitecustomize.py");
    struct strbuf now = STRBUF_INIT;
    int rc = fs_mkdir_p(ctx, dir);
    if (!rc && (fs_kind(dir) != FS_DIR || (fs_kind(path) != FS_NONE && fs_kind(path) != FS_FILE)))
        rc = cdm_error_set(ctx, CDM_EEXISTS,
                           "'%s' is not cdm's folder and file (a link?); cdm does not follow "
                           "it: remove it and run the command again",
                           path);
    bool same = !rc && fs_kind(path) == FS_FILE && fs_read_file(path, 1 << 16, &now) &&
                !strcmp(sb_str(&now), sitecustomize);
    if (!rc && !same)
        rc = fs_atomic_write_whole(ctx, path, sitecustomize, strlen(sitecustomize));
    sb_free(&now);
    free(path);
    return rc;
}

int exec_python_env(cdm_ctx *ctx, const char *dll_dir, char *values[2])
{
    values[0] = values[1] = NULL;
    char *dir = userstate_path(ctx, "python");
    path_slashes_to(dir, '\\');
    int rc = write_sitecustomize(ctx, dir);
    if (rc) {
        cdm_error_wrap(ctx, rc, "cannot give Python programs the DLL folders");
        free(dir);
        return rc;
    }
    const char *had = getenv("PYTHONPATH");
    size_t n = strlen(dir);
    /* a cdm exec inside another: cdm's folder is first already */
    if (had && *had && !(str_starts_with_icase(had, dir) && (!had[n] || had[n] == ';')))
        values[0] = xasprintf("%s;%s", dir, had);
    else
        values[0] = xstrdup(had && *had ? had : dir);
    values[1] = xstrdup(dll_dir);
    free(dir);
    return CDM_OK;
}
