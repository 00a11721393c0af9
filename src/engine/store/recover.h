/* Finishing or undoing work a crash or kill interrupted: installs, link changes, attaches. */
#ifndef CDM_RECOVER_H
#define CDM_RECOVER_H

#include "internal.h"

/* Under the store lock and the state's, with both open: recover_state, then
 * recover_store. *done counts what was dealt with. */
int recover_interrupted(cdm_ctx *ctx, unsigned *done);
/* Under the state's lock, the state open: settle every pending link change and every
 * attach or detach under way. */
int recover_state(cdm_ctx *ctx, unsigned *done);
/* Under the store lock, the index open: finish or drop every pending install, and empty
 * .staging/. */
int recover_store(cdm_ctx *ctx, unsigned *done);

/* Remove <state's folder>/.attached/<id> once the wheel's folder kept there (original) has
 * left it. */
void recover_attached_dir_drop(cdm_ctx *ctx, long long id, const char *original);

#endif
