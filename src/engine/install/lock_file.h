/* cudnn.lock's own shape, shared by its reader (lock_file.c) and cdm lock (lock.c). */
#ifndef CDM_LOCK_FILE_H
#define CDM_LOCK_FILE_H

#include "lock.h"

struct lock_entry {
    char platform[32];
    char archive[256];
    unsigned long long size;
    char sha256[65];
};

struct lock {
    char version[32];
    int cuda;
    struct lock_entry entries[16];
    int long_line; /* the line of a value longer than its field, 0 when none */
    size_t count;
};

/* The entry for platform; a new one when add is true and there is none (NULL when full). */
struct lock_entry *lock_entry_for(struct lock *l, const char *platform, bool add);
/* <project>/cudnn.lock, malloc'd. */
char *lock_path(const char *project);
/* Read the project's lock; CDM_ENOTFOUND (no message) when it has none. */
int lock_read(cdm_ctx *ctx, const char *project, struct lock *l);
/* The lock as the file's text, malloc'd. */
char *lock_text(const struct lock *l);

#endif
