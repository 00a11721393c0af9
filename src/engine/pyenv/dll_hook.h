/*
 * The DLL-directory hook of a Python environment on Windows (cdm attach).
 *
 * Python 3.8 and later load the DLLs an extension module imports only from the folders given
 * to os.add_dll_directory (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS), never from PATH; and cuDNN
 * opens its sub-libraries by name. So a program that loads cuDNN by name (CTranslate2, ONNX
 * Runtime, PaddlePaddle, ctypes.WinDLL("cudnn64_9.dll")) finds the project's only when such
 * a call names its folder. cdm writes two files of its own into the environment's
 * site-packages:
 *
 *   cdm-dll-dirs.txt  the folders, one a line, UTF-8: the project's <link>\<bin folder>.
 *                     A link or rollback rewrites it when the bin folder changes (8.x keeps
 *                     its DLLs in bin, 9.x archives in bin\x64); a switch of the same
 *                     layout needs nothing, the link itself leading elsewhere.
 *   cdm-dll-dirs.pth  one line that site.py runs at each start of the interpreter: it
 *                     calls os.add_dll_directory for each folder of the .txt that exists.
 *
 * Each is written whole by a rename over a temporary file and removed by cdm detach; a link
 * or anything but a regular file in their place is refused, never followed or replaced.
 */
#ifndef CDM_DLL_HOOK_H
#define CDM_DLL_HOOK_H

#include "internal.h"

#define DLL_HOOK_PTH  "cdm-dll-dirs.pth"
#define DLL_HOOK_LIST "cdm-dll-dirs.txt"

/* The site-packages folder of the environment at venv that the hook goes into (its own
 * first one), malloc'd; NULL when it has none. */
char *dll_hook_site(const char *venv);

/* Write the hook into site, naming dirs (NULL-terminated, Windows paths): the .txt first,
 * then the .pth, each only when its bytes differ. */
int dll_hook_write(cdm_ctx *ctx, const char *site, char *const *dirs);

/* Remove the hook from site (the .pth first, so that no start reads a half hook); nothing
 * there is fine. */
int dll_hook_remove(cdm_ctx *ctx, const char *site);

/* The folders the hook in site names, NULL-terminated, malloc'd (strv_free); NULL when site
 * has no hook of cdm's (no .pth, or not cdm's line). */
char **dll_hook_read(const char *site);

/* The environment's interpreter skips .pth files: an embedded Python whose ._pth file does
 * not import site. The ._pth file's path into why (for the warning), else false. */
bool dll_hook_blocked(const char *venv, char *why, size_t size);

#endif
