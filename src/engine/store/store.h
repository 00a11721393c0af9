/* Opening the store: the index, and for a writer the lock and recovery first. */
#ifndef CDM_STORE_H
#define CDM_STORE_H

#include "internal.h"

/* Open the store for reading or writing. Writers make the store's folders, hold the store
 * lock until the context is freed, and first finish or undo interrupted work (once per
 * process; what was done is reported as a warning). */
int store_open(cdm_ctx *ctx, bool for_writing);

/* The store for reading (as store_open_settled) and the user's state for writing: its lock
 * held until the context is freed, its interrupted link changes and attachments settled
 * first. For link, unlink, rollback, attach, detach: they work on a read-only store. */
int store_open_state(cdm_ctx *ctx);

/* Open the store for reading, and first finish work a kill interrupted when there is any
 * (a pending record, anything in .staging/): under the lock, taken without waiting and
 * released after. When a writer holds the lock, its work is left to it: readers then see
 * its installs as CDM_INSTALL_INSTALLING or _REMOVING (store_install_state). */
int store_open_settled(cdm_ctx *ctx);

/* Refine in->state, read from the index, by the disk: a recorded install whose folder is
 * set aside is being removed, one whose folder is gone is missing. One stat when it is
 * in place. */
void store_install_state(cdm_ctx *ctx, struct cdm_install_info *in);

#endif
