/* The install protocol: an install enters or leaves the store all or nothing, and what a
 * kill interrupted is finished or undone (journal_install.c says how). */
#ifndef CDM_JOURNAL_INSTALL_H
#define CDM_JOURNAL_INSTALL_H

#include "db.h"
#include "internal.h"

/* Commit the checked tree tmp (in .staging/) as the install in, with its files' records:
 * sealed, synced, recorded, renamed into place. Under the store's lock. */
int journal_install_commit(cdm_ctx *ctx, const char *tmp, const struct cdm_install_info *in,
                           const struct db_file *files, size_t file_count);

/* Take the install id out of the store: its folder set aside, its record deleted, the
 * folder deleted. Under the store's lock, once no project uses it. */
int journal_install_remove(cdm_ctx *ctx, const char *id);

/* Finish or undo the installs and removes a kill interrupted, and empty .staging/ (*done
 * counts what was dealt with). Under the store's lock, the index open. */
int journal_install_recover(cdm_ctx *ctx, unsigned *done);

#endif
