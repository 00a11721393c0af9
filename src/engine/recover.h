/* Finishing or undoing work a crash or kill interrupted: installs, link changes, attaches. */
#ifndef CDM_RECOVER_H
#define CDM_RECOVER_H

#include "internal.h"

/* Under the store lock, with the index open: settle every pending link change, finish or
 * drop every pending install, and empty .staging/. *done counts what was dealt with. */
int recover_interrupted(cdm_ctx *ctx, unsigned *done);

/* Remove .attached/<id> once the wheel's folder kept there (original) has left it. */
void recover_attached_dir_drop(cdm_ctx *ctx, long long id, const char *original);

#endif
