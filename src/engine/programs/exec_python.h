/*
 * cdm exec on Windows: the Python programs it starts get the project's DLL folders.
 *
 * Python 3.8 and later load the DLLs an extension module imports only from folders given to
 * os.add_dll_directory, never from PATH, so the PATH that exec sets does not reach
 * CTranslate2, ONNX Runtime or ctypes.WinDLL("cudnn64_9.dll"). exec puts a folder of cdm's
 * own first on PYTHONPATH, holding a sitecustomize.py that calls os.add_dll_directory for
 * each folder of CDM_DLL_DIRECTORIES, then runs the sitecustomize it hides (the
 * environment's own, if any). What it cannot reach: an interpreter started with -S, -I or
 * -E (no site, or PYTHONPATH ignored), an embedded Python whose ._pth file fixes sys.path,
 * and a program that loads a DLL by its full path (torch\lib: cdm attach reaches that).
 */
#ifndef CDM_EXEC_PYTHON_H
#define CDM_EXEC_PYTHON_H

#include "internal.h"

/* The two variables for a program run with the project's DLL folder dll_dir (Windows
 * paths): PYTHONPATH (cdm's folder, then the one this process has) and CDM_DLL_DIRECTORIES,
 * each value malloc'd into values[0] and values[1]. Writes cdm's sitecustomize.py into its
 * folder under the user's state first, unless it is there already. */
int exec_python_env(cdm_ctx *ctx, const char *dll_dir, char *values[2]);

#endif
