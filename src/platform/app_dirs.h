/*
 * Where other programs keep what cdm writes for them, and where cdm itself is: one
 * implementation per platform (app_dirs_posix.c, app_dirs_win32.c).
 */
#ifndef CDM_APP_DIRS_H
#define CDM_APP_DIRS_H

/* Jupyter's user data folder, whose kernels/ holds the kernelspecs `jupyter kernelspec
 * list` shows: $JUPYTER_DATA_DIR, else ${XDG_DATA_HOME:-~/.local/share}/jupyter
 * (%APPDATA%\jupyter on Windows). malloc'd. */
char *app_jupyter_data_dir(void);

/* The user's Downloads folder, where a browser puts NVIDIA's archives and wheels:
 * $HOME/Downloads (%USERPROFILE%\Downloads on Windows); NULL when there is no home.
 * malloc'd. */
char *app_downloads_dir(void);

/* The running program's own file, links resolved; NULL when the system does not say.
 * malloc'd. */
char *app_self_path(void);

#endif
