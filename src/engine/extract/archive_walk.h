/*
 * Walking an archive's entries, shared by the streaming extraction (archive.c) and the
 * parallel one of zips (zip_extract.c): every entry checked (entry_check.c), folders made,
 * links held until the last entry and then judged and made, the files' records kept, the
 * version headers read. What becomes of a regular file is the caller's (take_file).
 */
#ifndef CDM_ARCHIVE_WALK_H
#define CDM_ARCHIVE_WALK_H

#include "cdm_archive.h"
#include "entry_check.h"

struct archive;
struct archive_entry;

#define HEADER_KEEP (1 << 20) /* cudnn.h of v7 is about 100 KiB */

/* Everything an extraction needs while walking the entries. */
struct walk {
    cdm_ctx *ctx;
    const char *archive_path;
    const char *dest;
    const struct extract_limits *limits;
    struct extract_result *result;
    /* a regular file, checked, its folder made: written (archive.c) or planned (zip) */
    int (*take_file)(struct walk *w, struct archive *a, struct archive_entry *e, const char *rel);
    void *arg; /* the take_file's own state */
    size_t file_cap;
    struct entry_checker check;
    struct strmap file_index; /* a regular file's path -> its place in result->files */
    char *header_from;        /* the header that gave the version */
    unsigned entries;         /* walk_entry's calls: none is an empty archive */
};

/* The start of an archive's walk: result emptied, w set to extract path into dest, each
 * regular file given to take_file with arg (archive.c's tar walk, zip_extract.c's). */
void walk_start(struct walk *w, cdm_ctx *ctx, const char *path, const char *dest,
                const struct extract_limits *limits, struct extract_result *result,
                int (*take_file)(struct walk *w, struct archive *a, struct archive_entry *e,
                                 const char *rel),
                void *arg);
/* The end of a walk that saw every entry: an empty archive refused, the links judged and
 * made (walk_links), the top folder into the result. */
int walk_finish(struct walk *w);

/* A copy of s owned by r. */
const char *walk_keep_string(struct extract_result *r, const char *s);
/* Record an entry below the top folder (link_target for a symbolic link). */
void walk_add_file(struct walk *w, const char *rel, unsigned long long size, const char *sha256,
                   const char *link_target, int mode);
/* The error for an entry entry_check refused. */
int walk_refuse(struct walk *w, const struct entry_verdict *v);
int walk_make_parents(struct walk *w, const char *rel);
/* cudnn_version.h and cudnn.h, wherever they are: their text goes to walk_header_version. */
bool walk_is_version_header(const char *rel);
int walk_header_version(struct walk *w, const char *rel, const char *text, size_t len);
/* Check one entry and act on it (w->take_file for a regular file). */
int walk_entry(struct walk *w, struct archive *a, struct archive_entry *e);
/* After the last entry: judge the links held and make them (walk_finish does). */
int walk_links(struct walk *w);
/* The data of the entry a is at, whole, into `into` (emptied first): a package's small file
 * (a wheel's METADATA, a conda package's index.json). More than max bytes is refused, the
 * message calling the package what ("wheel", "conda package") and naming file and name. */
int walk_entry_text(cdm_ctx *ctx, struct archive *a, const char *what, const char *file,
                    const char *name, size_t max, struct strbuf *into);
/* Open a (made by the caller, its formats and filters set) on the file at path, read
 * through the file system's reader (UTF-8 paths on Windows). CDM_EARCHIVE, with no message,
 * when libarchive cannot read it: the caller says what it should have been. walk_close_file
 * after archive_read_free, in any case. */
struct walk_file;
int walk_open_file(cdm_ctx *ctx, struct archive *a, const char *path, struct walk_file **out);
void walk_close_file(struct walk_file *s);
/* The data of the entry a is at (name, in the package file), copied into a new file at to
 * (a staging folder's, which the caller removes). */
int walk_entry_copy(cdm_ctx *ctx, struct archive *a, const char *file, const char *name,
                    const char *to);
/* What the walk holds (not the result). */
void walk_free(struct walk *w);

#endif
