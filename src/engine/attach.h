/* The Python environments attached to a project, as its link changes see them (attach.c). */
#ifndef CDM_ATTACH_H
#define CDM_ATTACH_H

#include "internal.h"

/* May the project switch to the install to (NULL: it is being unlinked)? Each environment
 * attached to it is checked as cdm attach checks it, from the disk: its framework's rule on
 * the version (torch's, or the wheel's own) and a file in to of each name it links. A
 * problem refuses the switch with a message naming the environment, the framework and the
 * rule, unless force (then a warning); an unlink only warns. */
int attach_check_switch(cdm_ctx *ctx, const char *project, const struct cdm_install_info *to,
                        bool force);

#endif
