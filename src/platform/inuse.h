/*
 * Which running programs hold files open. On Windows a DLL a process has loaded cannot
 * be replaced, and the Restart Manager (RmGetList) names the processes that hold it; on
 * POSIX a file replaced by a rename leaves running programs their old copy, so nothing
 * stands in the way and nothing is reported.
 */
#ifndef CDM_INUSE_H
#define CDM_INUSE_H

#include <stddef.h>

/* "python.exe (pid 4242), ..." for the processes that hold any of the n files, malloc'd;
 * NULL when none does or the system cannot tell. */
char *inuse_holders(const char *const *paths, size_t n);

#endif
