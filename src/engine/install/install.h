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

/* Before the commit of the staged tree tmp (install id, its files' records): each file
 * identical to another install's (hash, size, mode, and the other file read and held to
 * its record) made a hard link to it, counted in result (dedup.c). Never fails: a file
 * that cannot be shared stays a copy. Files under DEDUP_SHARE_MIN bytes stay each
 * install's own. */
#define DEDUP_SHARE_MIN 4096
void dedup_staged(cdm_ctx *ctx, const char *tmp, const char *id, const struct db_file *files,
                  size_t n, struct cdm_install_result *result);

/* [install] require_license: refuse the request (before anything is read) unless NVIDIA's
 * licence is accepted by it or by the config (license.c). */
int license_check(cdm_ctx *ctx, const struct cdm_install_request *req);
/* Record the acceptance the request or the config gives for install id (none: nothing). */
int license_record(cdm_ctx *ctx, const struct cdm_install_request *req, const char *id);

#endif
