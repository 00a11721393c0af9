/* Opening the store: the index, and for a writer the lock and recovery first. */
#ifndef CDM_STORE_H
#define CDM_STORE_H

#include "internal.h"

/*
 * Each opener takes touches, the recover_protocol bits of the work its caller reads or
 * changes: interrupted work of those protocols is finished or undone first (once per
 * process; what was done is reported as a warning), and only of those.
 */

/* Open the store for reading, as it is. */
int store_open_read(cdm_ctx *ctx);

/* Open the store for writing: make its folders, take its lock and then the user's state's
 * (both held until the context is freed), open the index and the state, and recover
 * touches. An index opened for reading before is kept (the same file: SQLite reads it
 * afresh in each transaction), so a command that looked first opens it once. */
int store_open_write(cdm_ctx *ctx, unsigned touches);

/* The store for reading (as store_open_settled) and the user's state for writing: its lock
 * held until the context is freed, its interrupted work of touches settled first. For
 * link, unlink, rollback, attach, detach: they work on a read-only store. */
int store_open_state(cdm_ctx *ctx, unsigned touches);

/* Open the store for reading, and first finish work of touches a kill interrupted when
 * there is any (a pending record; for installs, anything in .staging/): under the locks
 * those need, taken without waiting and released after. When a writer holds them, its work
 * is left to it: readers then see its installs as CDM_INSTALL_INSTALLING or _REMOVING
 * (store_install_state). */
int store_open_settled(cdm_ctx *ctx, unsigned touches);

/* Whether an install or a removal a kill interrupted (or a writer is doing now) leaves
 * anything to see: a folder in .staging/, a pending record. */
bool store_installs_interrupted(cdm_ctx *ctx);

/* Whether an install spec names (version_spec_matches) is one a kill interrupted while it
 * was installed or removed, by the index and the disk as they are: no recovery runs. */
bool store_spec_interrupted(cdm_ctx *ctx, const char *spec, int cuda);

/* Refine in->state, read from the index, by the disk: a recorded install whose folder is
 * set aside is being removed, one whose folder is gone is missing. One stat when it is
 * in place. */
void store_install_state(cdm_ctx *ctx, struct cdm_install_info *in);

#endif
