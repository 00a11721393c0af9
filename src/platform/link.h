/*
 * A project's link to a store folder: a symbolic link on POSIX (link_posix.c), an NTFS
 * junction on Windows (link_win32.c). Same API, one file per platform.
 */
#ifndef CDM_LINK_H
#define CDM_LINK_H

#include "cdm.h"
#include "base/error.h"

enum link_kind {
    LINK_NONE,    /* nothing at that path */
    LINK_OURS,    /* a symbolic link (POSIX), a junction or an absolute directory symbolic
                   * link (Windows): target is filled */
    LINK_FOREIGN, /* a real folder or file, or a kind of link cdm does not make */
};

/* What is at path. *target (malloc'd) is set for LINK_OURS only. */
int link_read(cdm_ctx *ctx, const char *path, enum link_kind *kind, char **target);

/* Point path at target (an absolute folder), creating or switching it so that readers see
 * the old target or the new one, never nothing where the platform allows. Refuses when
 * path holds anything that is not a link. A new link is made at <path>.cdm-<pid>.tmp
 * first; a kill can leave it (the engine's project_clean_leftovers removes it). */
int link_set(cdm_ctx *ctx, const char *path, const char *target);

/* link_set, where *none tells that no kind of link can be made at path: on Windows the
 * volume or the user's rights refuse both a junction and a directory symbolic link (the
 * error then says "junctions and symbolic links cannot be made on 'X:\' (FAT32) (...)").
 * POSIX never sets it. A directory symbolic link made there reads back as LINK_OURS. */
int link_set_or_none(cdm_ctx *ctx, const char *path, const char *target, bool *none);

/* Remove the link at path, never its target. Refuses anything that is not a link. */
int link_remove(cdm_ctx *ctx, const char *path);

/* A new link at path to target, a folder (dir) or a file, for a view (engine/toolkit/view.h): a
 * symbolic link on POSIX; on Windows a junction for a folder, and for a file a hard link
 * where the volume and the rights allow, else a file symbolic link where Developer Mode
 * allows, else CDM_EUNSUPPORTED saying why neither could be made. */
int link_view_entry(cdm_ctx *ctx, const char *target, const char *path, bool dir);

/* Whether a and b are the same file: the same one once links are resolved, or another
 * name of it (a hard link, which Windows views use). */
bool link_same_file(const char *a, const char *b);

#endif
