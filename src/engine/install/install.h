/* What an install from an archive (install.c) shares with one from another store
 * (install_from.c). */
#ifndef CDM_INSTALL_H
#define CDM_INSTALL_H

#include "db.h"

/* Under the store lock: the checked tree in tmp (a .staging/ folder, its files written
 * with fs_file_create) becomes install in, recorded with its files: made durable, renamed
 * .ready, recorded "pending", moved into place (an old folder of the same id aside, then
 * deleted), marked "ok". A crash anywhere is finished or undone by the next writer. */
int install_commit(cdm_ctx *ctx, const char *tmp, const struct cdm_install_info *in,
                   const struct db_file *files, size_t file_count);

#endif
