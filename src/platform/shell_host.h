/*
 * Facts about the operating system that activation works from: how its environment names
 * the loader's path list and separates entries, and which shell started cdm where the
 * system can tell. Facts only: the engine decides what to set (engine/activation/env_plan.h).
 */
#ifndef CDM_SHELL_HOST_H
#define CDM_SHELL_HOST_H

#include <stdbool.h>

struct shell_platform {
    const char *path_var; /* the list the loader searches: LD_LIBRARY_PATH, or PATH on Windows */
    char list_sep;        /* between the list's entries: ':' or ';' */
    char dir_sep;         /* '/' or '\\' */
    bool fold_case;       /* file names compare case-insensitively (Windows) */
    bool use_bin_dir;     /* the loader finds libraries in bin folders (DLLs), not lib */
};
/* Both systems' facts (shell_host.c), so tests on either can play the other. */
extern const struct shell_platform shell_platform_posix;
extern const struct shell_platform shell_platform_windows;

/* shell_posix.c / shell_win32.c: this system's. */
const struct shell_platform *shell_host_platform(void);
/* The program name of the process that started cdm, where the system can tell (Windows:
 * pwsh.exe, powershell.exe, cmd.exe, which set no $SHELL); NULL elsewhere. */
const char *shell_parent_name(void);

#endif
