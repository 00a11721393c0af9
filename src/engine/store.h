/* Opening the store: the index, and for a writer the lock and recovery first. */
#ifndef CDM_STORE_H
#define CDM_STORE_H

#include "internal.h"

/* Open the store for reading or writing. Writers make the store's folders, hold the store
 * lock until the context is freed, and first finish or undo interrupted work (once per
 * process; what was done is reported as a warning). */
int store_open(cdm_ctx *ctx, bool for_writing);

#endif
