/* Opening the store: the index, and for a writer the lock and recovery first. */
#ifndef CDM_STORE_H
#define CDM_STORE_H

#include "internal.h"

/*
 * The one way the engine opens the store. access says what the caller reads and writes;
 * touches, the recover_protocol bits of the work it reads or changes: interrupted work of
 * those protocols is finished or undone first (once per process; what was done is reported
 * as a warning), and only of those. An opener that already holds what access needs returns
 * at once, so a command opens the store once however many of its parts ask:
 *
 *   STORE_READ     the index, as it is.
 *   STORE_SETTLED  the index, after finishing the work of touches a kill interrupted when
 *                  there is any (a pending record; for installs, anything in .staging/),
 *                  under the locks those need, taken without waiting and released after.
 *                  When a writer holds them, its work is left to it: readers then see its
 *                  installs as CDM_INSTALL_INSTALLING or _REMOVING (store_install_state).
 *   STORE_STATE    the store as STORE_SETTLED, and the user's state for writing: its lock
 *                  held until the context is freed. For link, unlink, rollback, attach,
 *                  detach: they work on a read-only store.
 *   STORE_WRITE    the store for writing: its folders made, its lock and then the state's
 *                  held until the context is freed, the index and the state open. An index
 *                  opened for reading before is kept (the same file: SQLite reads it afresh
 *                  in each transaction), so a command that looked first opens it once.
 *
 * The locks are always taken in that order, the store's before the state's, so a change
 * that does not know yet whether it needs the store's lock (a link that may build a view)
 * looks first (STORE_SETTLED, no lock held) and then opens in the mode it needs.
 */
enum store_access { STORE_READ, STORE_SETTLED, STORE_STATE, STORE_WRITE };
int store_open(cdm_ctx *ctx, enum store_access access, unsigned touches);

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
