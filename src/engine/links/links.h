/* Changing a project's link, as other engine files need it (cdm.h has the commands). */
#ifndef CDM_LINKS_H
#define CDM_LINKS_H

#include "internal.h"

/* cdm remove --force: the project (a recorded key, its folder possibly gone) stops using
 * the version being removed; recorded as an unlink. */
int project_unlink_for_remove(cdm_ctx *ctx, const char *project);

#endif
