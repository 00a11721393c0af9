/* The link protocol: a project's link changed as a generation, and a change a kill
 * interrupted settled by what the disk shows (journal_link.c says how). */
#ifndef CDM_JOURNAL_LINK_H
#define CDM_JOURNAL_LINK_H

#include "db.h"
#include "internal.h"

struct link_change {
    const struct cdm_project *project;
    const char *old_name;    /* the link's name in the project's history; NULL: the same */
    const char *link_name;   /* the link's name now */
    const char *install_id;  /* what it links; NULL: the link is removed */
    const char *target;      /* where the link leads: the install's folder, or its view */
    struct db_view_ref view; /* the toolkit's view it leads to; all empty or NULL: none */
    const char *action;      /* "link", "unlink", "rollback": the history's word */
    const char *pin;         /* the id the pin file gets; NULL: the pin stays */
    /* the attached environments follow (attach_follow_switch): from the folder the link led
     * to before, to the DLL folder bin of the new target */
    bool follow;
    const char *follow_old_root, *follow_bin;
};

/* Make change c, recorded as a generation of its project. Under the state's lock. */
int journal_link_change(cdm_ctx *ctx, const struct link_change *c);

/* Settle every pending generation by what the disk shows (*done counts them). Under the
 * state's lock, the state open. */
int journal_link_recover(cdm_ctx *ctx, unsigned *done);

#endif
