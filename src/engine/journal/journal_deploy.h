/* The deploy protocol: cuDNN's files placed into a CUDA toolkit and taken out again, and
 * a deploy a kill interrupted undone (journal_deploy.c says how). */
#ifndef CDM_JOURNAL_DEPLOY_H
#define CDM_JOURNAL_DEPLOY_H

#include "db_deploy.h"

/* One file to place: from the install, to a path relative to the toolkit. */
struct deploy_plan {
    struct db_deploy_file *files;
    char **from; /* absolute, in the install */
    size_t n;
};
void deploy_plan_free(struct deploy_plan *p);

/* Deploy plan p into the toolkit d->toolkit, recorded as d (toolkit, install_id and
 * toolkit_version filled in); *replaced counts the toolkit's files it replaces. A failure
 * puts back what was placed. Under the store's lock. */
int journal_deploy(cdm_ctx *ctx, struct db_deploy *d, struct deploy_plan *p, size_t *replaced);

/* Put every file of deploy d back as it was before, then forget the deploy and the kept
 * files no other deploy needs. Safe to run again after a kill at any point. */
int journal_deploy_undo(cdm_ctx *ctx, const struct db_deploy *d);

/* Undo every deploy a kill interrupted (*done counts them). Under the store's lock. */
int journal_deploy_recover(cdm_ctx *ctx, unsigned *done);

#endif
