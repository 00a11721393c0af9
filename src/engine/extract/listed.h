/*
 * A package's own list of its files and their hashes: a wheel's RECORD, a conda package's
 * info/paths.json (or the record pip or conda left of an installed one). Each form reads its
 * list into rows (wheel.c, conda.c); what was unpacked or copied is then checked against it
 * here, the same way for every form: every file has its row with the same sha256 and size,
 * a link has a link's row where the form allows links, and every row the form says must be
 * there has its file.
 */
#ifndef CDM_LISTED_H
#define CDM_LISTED_H

#include "db.h"
#include "base/strmap.h"

struct listed_row {
    char *path;      /* as the list writes it: nvidia/cudnn/lib/libcudnn.so.9 */
    char sha256[65]; /* lowercase hex; "" for a link */
    unsigned long long size;
    bool link;
};

struct listed {
    struct listed_row *rows;
    size_t count;
    struct strmap by_path;
};

/* Add a row (sha256 NULL for a link). False, adding nothing, when the list has path
 * already: *at is then that row's index. */
bool listed_add(struct listed *l, const char *path, const char *sha256, unsigned long long size,
                size_t *at);
const struct listed_row *listed_get(const struct listed *l, const char *path);
void listed_free(struct listed *l);

/* How a form's files meet its list. */
struct listed_check {
    const char *noun;   /* the form, in messages: "wheel", "conda package" */
    const char *file;   /* the package or folder, in messages */
    const char *list;   /* the list's name: "RECORD", "info/paths.json" */
    const char *prefix; /* what a file's path below the install has before it in the list:
                         * "nvidia/cudnn/", "Library/", "" */
    bool links;         /* the form may hold links (a wheel cannot) */
    bool installed;     /* the list is of files installed on the disk (a venv's, a conda
                         * environment's): a file that differs was changed since */
    /* The rows whose file must be there (NULL: every row below prefix). */
    bool (*expected)(const char *row_path, const void *arg);
    const void *arg;
};

/* Every file of files (path below the install, sha256, size; a link by its link_target; a
 * folder, neither, has no row) against l; then every expected row against the files. */
int listed_check(cdm_ctx *ctx, const struct listed *l, const struct listed_check *how,
                 const struct db_file *files, size_t count);

#endif
