/* The attach protocol: an environment's cuDNN files given to a project and given back, and
 * what a kill interrupted put back (journal_attach.c says how). */
#ifndef CDM_JOURNAL_ATTACH_H
#define CDM_JOURNAL_ATTACH_H

#include "db_attach.h"
#include "internal.h"

/* Attach a (venv, folder, project, target, install_id and wheel filled in; the rest is
 * filled here): each of names (NULL: none, the hook alone) moved aside and linked to the
 * project's file, the hook written (out->hook). Under the state's lock. */
int journal_attach(cdm_ctx *ctx, struct db_attachment *a, char *const *names,
                   struct cdm_attach_result *out);

/* Detach a: its files given back (or, where pip or uv replaced them, the environment's own
 * left; wheel_changed), its hook removed; the record ends "detached". out->restored and
 * out->dropped count the files. Under the state's lock. */
int journal_detach(cdm_ctx *ctx, struct db_attachment *a, bool wheel_changed,
                   struct cdm_attach_result *out);

/* Put back the files of every attach and detach a kill interrupted (*done counts them).
 * Under the state's lock, the state open. */
int journal_attach_recover(cdm_ctx *ctx, unsigned *done);

#endif
