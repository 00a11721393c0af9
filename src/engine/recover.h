/* Finishing or undoing work a crash or kill interrupted: installs and link changes. */
#ifndef CDM_RECOVER_H
#define CDM_RECOVER_H

#include "internal.h"

/* Under the store lock, with the index open: settle every pending link change, finish or
 * drop every pending install, and empty .staging/. *done counts what was dealt with. */
int recover_interrupted(cdm_ctx *ctx, unsigned *done);

#endif
