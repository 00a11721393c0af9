/*
 * The checks every archive entry passes before anything of it is written (DESIGN.md's
 * safety rules): pure functions on names and kinds, apart from libarchive and from the
 * writing, which archive.c does. A refusal is a phrase that follows "entry 'NAME' ":
 * "is an absolute path", "goes up with '..'", "is a device", ...
 */
#ifndef CDM_ENTRY_CHECK_H
#define CDM_ENTRY_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Normalise an entry path ('\\' to '/', no "./", no trailing '/'). Returns NULL when it is
 * acceptable, else why not ("is an absolute path", "goes up with '..'", "names a drive"). */
const char *entry_path_check(const char *raw, char *out, size_t size);

/* True when a link at link_path (relative to the version folder) pointing to target stays
 * inside the version folder. */
bool link_target_inside(const char *link_path, const char *target);

enum entry_kind {
    ENTRY_DIR,
    ENTRY_FILE,
    ENTRY_SYMLINK,
    ENTRY_HARDLINK,
    ENTRY_DEVICE,
    ENTRY_FIFO,
    ENTRY_SOCKET,
    ENTRY_UNTYPED, /* the archive records no type: accepted as the top folder only */
    ENTRY_UNKNOWN,
};

/* What the checks remember across the entries of one archive. */
struct entry_checker {
    unsigned long long max_entries; /* set by the caller: [install] max_entries */
    unsigned long long entries;     /* below the top folder, so far */
    char top[256];                  /* the archive's one top folder, "" before the first */
    char **links;                   /* the symbolic links accepted so far, below the top */
    size_t link_count;
};
void entry_checker_free(struct entry_checker *c);

struct entry_verdict {
    const char *why;   /* NULL: accepted */
    bool too_many;     /* refused for passing max_entries (why is NULL then) */
    const char *name;  /* the entry as a message names it (into raw or path) */
    char path[4096];   /* normalised */
    const char *rel;   /* below the top folder (into path); NULL for the top folder itself */
    char target[4096]; /* a hard link's target, below the top folder */
};

/* Check the next entry of the archive: raw is its name as stored, link_target the target
 * of a symbolic or hard link as stored (NULL for other kinds). An accepted symbolic link
 * is remembered, so that nothing later is written through it. */
void entry_check(struct entry_checker *c, const char *raw, enum entry_kind kind,
                 const char *link_target, struct entry_verdict *v);

#endif
