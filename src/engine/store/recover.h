/* Finishing or undoing work a crash or kill interrupted: installs, link changes, attaches. */
#ifndef CDM_RECOVER_H
#define CDM_RECOVER_H

#include "internal.h"

/* The recoveries of protocols (recover_protocol bits), in this order: link changes, then
 * attaches and detaches (under the state's lock, the state open), deploys, then installs
 * (finished or dropped, .staging/ emptied; under the store's lock, the index open).
 * *done counts what was dealt with. */
int recover_run(cdm_ctx *ctx, unsigned protocols, unsigned *done);

/* Remove <state's folder>/.attached/<id> once the wheel's folder kept there (original) has
 * left it. */
void recover_attached_dir_drop(cdm_ctx *ctx, long long id, const char *original);

#endif
