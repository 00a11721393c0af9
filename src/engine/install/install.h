/* What an install from an archive (install.c) shares with one from another store
 * (install_from.c). */
#ifndef CDM_INSTALL_H
#define CDM_INSTALL_H

#include "cdm_archive.h"
#include "journal_install.h"

/* One id, one set of bytes: the install from the file at from (of kind source), checked
 * and unpacked (x), against the install of the same id recorded from another file. CDM_OK
 * when every cuDNN library it brings is, by name, the same bytes as that install's (the
 * same cuDNN, repacked); else refused, naming the first library that differs. */
int install_same_libraries(cdm_ctx *ctx, const struct cdm_install_info *existing, const char *from,
                           const char *source, const struct extract_result *x);

/* cdm install DIR: the cuDNN in a folder on the disk (a Python environment's wheel, a
 * CUDA-style folder, the Windows installer's tree) copied into the store (install_folder.c). */
int install_folder(cdm_ctx *ctx, const struct cdm_install_request *req,
                   struct cdm_install_result *result);

#endif
