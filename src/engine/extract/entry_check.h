/*
 * The checks every archive entry passes before anything of it is written (the store's
 * safety rules, docs/store.md): pure functions on names and kinds, apart from libarchive and from
 * the writing, which archive.c does. A refusal is a phrase that follows "entry 'NAME' ": "is an
 * absolute path", "goes up with '..'", "is a device", ... and, for a link, follows "entry 'NAME' (a
 * link to 'TARGET') ": "points to an absolute path", ...
 *
 * Links: a cuDNN archive only ever links a library to a file beside it (libcudnn.so ->
 * libcudnn.so.9 -> libcudnn.so.9.19.0), so that is all a link may do: its target is a
 * name with no '/' or '\', not "." or "..", no ':', naming a file of the same folder of the
 * archive, or a link that ends at one. A hard link names a file of its own folder likewise.
 * Links are held back and judged after the last entry (a link may come before its file);
 * archive.c makes them only then, so no entry is ever written through one.
 *
 * Every check costs O(depth of the path) per entry, whatever the number of entries.
 */
#ifndef CDM_ENTRY_CHECK_H
#define CDM_ENTRY_CHECK_H

#include "base/strmap.h"

#include <stdbool.h>
#include <stddef.h>

/* Normalise an entry path ('\\' to '/', no "./", no trailing '/'). Returns NULL when it is
 * acceptable, else why not ("is an absolute path", "goes up with '..'", "names a drive"). */
const char *entry_path_check(const char *raw, char *out, size_t size);

/* NULL when a symbolic link's target, as stored, is a plain name beside the link; else why
 * not ("points to an absolute path", "does not point to a name beside it", ...). */
const char *link_name_check(const char *target);

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

/* A link accepted so far, made on disk only after entry_links_check. */
struct entry_link {
    char *rel;    /* below the top folder */
    char *stored; /* the target as the archive stores it */
    char *target; /* symbolic: the name beside it; hard: the file it shares, below the top */
    bool hard;
};

/* What the checks remember across the entries of one archive. */
struct entry_checker {
    unsigned long long max_entries; /* set by the caller: [install] max_entries */
    unsigned long long entries;     /* below the top folder, so far */
    char top[256];                  /* the archive's one top folder, "" before the first */
    struct strmap seen;             /* every path below the top: its kind, a link's index */
    struct entry_link *links;
    size_t link_count, link_cap;
};
void entry_checker_free(struct entry_checker *c);
/* rel (below the top folder) is a file already in the install, unpacked from another part
 * of it: a link may point to it, an entry may not have its name. */
void entry_checker_beside(struct entry_checker *c, const char *rel);

struct entry_verdict {
    const char *why;         /* NULL: accepted */
    bool too_many;           /* refused for passing max_entries (why is NULL then) */
    const char *name;        /* the entry as a message names it (into raw or path) */
    const char *link_target; /* a refused link's target as stored, else NULL */
    bool hard;               /* the refused link is a hard link */
    char path[4096];         /* normalised */
    const char *rel;         /* below the top folder (into path); NULL for the top folder */
};

/* Check the next entry of the archive: raw is its name as stored, link_target the target
 * of a symbolic or hard link as stored (NULL for other kinds). An accepted link is held in
 * c->links for entry_links_check: the caller writes nothing for it yet. */
void entry_check(struct entry_checker *c, const char *raw, enum entry_kind kind,
                 const char *link_target, struct entry_verdict *v);

/* A row of another store's index (install --from-store), as untrusted as an archive's
 * entry and checked as one: path is below the install folder, written as cdm records paths
 * ('/'-separated, nothing to normalise); a row with a hash is a regular file, one with a
 * link_target a symbolic link, any other a folder. v->name is path, or v->rel. */
void entry_check_row(struct entry_checker *c, const char *path, bool file, const char *link_target,
                     struct entry_verdict *v);

/* After the last entry: judge every link held. Returns NULL when all pass (then each hard
 * link's target is the regular file it shares), else why, with v naming the link. */
const char *entry_links_check(struct entry_checker *c, struct entry_verdict *v);

#endif
