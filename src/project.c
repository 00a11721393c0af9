/* Projects: their links and generations. */
#include "internal.h"

int project_unlink_for_remove(cdm_ctx *ctx, const char *project)
{
    return cdm_error_set(ctx, CDM_EUNSUPPORTED, "cannot unlink '%s' yet", project);
}
