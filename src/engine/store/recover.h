/* Finishing or undoing work a crash or kill interrupted, for every crash-safe protocol of
 * journal/ (recover.c holds their table). */
#ifndef CDM_RECOVER_H
#define CDM_RECOVER_H

#include "internal.h"

/* The recoveries of protocols (recover_protocol bits), in this order: link changes, then
 * attaches and detaches (under the state's lock, the state open), deploys, then installs
 * (finished or dropped, .staging/ emptied; under the store's lock, the index open).
 * *done counts what was dealt with. */
int recover_run(cdm_ctx *ctx, unsigned protocols, unsigned *done);

/* The locks the recoveries of protocols run under: RECOVER_STATE (the user's state's) and
 * RECOVER_STORE (the store's) bits. */
unsigned recover_locks(unsigned protocols);

#endif
