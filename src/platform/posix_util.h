/*
 * What the *_posix.c files share (as win32_util.h for Windows). POSIX only; the core never
 * includes it.
 */
#ifndef CDM_POSIX_UTIL_H
#define CDM_POSIX_UTIL_H

/* An XDG folder: $var when it is an absolute path (the specification ignores a relative
 * one), else $HOME/fallback; then leaf below it. malloc'd. Defined in fs_posix.c. */
char *posix_xdg_dir(const char *var, const char *fallback, const char *leaf);

#endif
