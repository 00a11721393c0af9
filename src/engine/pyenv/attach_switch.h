/* The Python environments attached to a project, as its link changes see them (attach_switch.c). */
#ifndef CDM_ATTACH_SWITCH_H
#define CDM_ATTACH_SWITCH_H

#include "internal.h"

/* May the project switch to the install to (NULL: it is being unlinked), with also beside
 * it as its second cuDNN major (NULL or id "": none)? Each environment attached to it is
 * checked as cdm attach checks it, from the disk, against the install of its own major
 * (also for one attached to the second major): its framework's rule on the version
 * (torch's, or the wheel's own) and a file of each name it links. A problem refuses the
 * switch with a message naming the environment, the framework and the rule, unless force
 * (then a warning); an unlink only warns. */
int attach_check_switch(cdm_ctx *ctx, const char *project, const struct cdm_install_info *to,
                        const struct cdm_install_info *also, bool force);

/* After the project's link moved from old_root (the folder its link led to before, NULL
 * when it had none) to its new target: each attached environment's file that is still
 * another name of old_root's file (a hard link, as Windows attaches make; a symbolic link
 * through the project's link follows by itself) is replaced by one to the project's file
 * of that name. Each file is replaced by a rename over it, so the environment holds the
 * old link or the new one at any time; a kill may leave a '<name>.cdm-<pid>.tmp' file beside
 * it. On Windows each environment's DLL folders hook (dll_hook.h) is made to name the
 * link's bin_dir (relative to the link; NULL: left as it is). A failure is a warning: the
 * switch itself is done. */
void attach_follow_switch(cdm_ctx *ctx, const char *project, const char *old_root,
                          const char *bin_dir);

#endif
