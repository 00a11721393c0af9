/*
 * The files of a deploy (cdm deploy): placing one in a toolkit all at once, and keeping
 * the one it replaces in the store by content (the deploy protocol, journal_deploy.c, puts
 * them back).
 */
#ifndef CDM_DEPLOY_FILES_H
#define CDM_DEPLOY_FILES_H

#include "db_deploy.h"

/* The SHA-256 of the file at path. */
int deploy_hash(cdm_ctx *ctx, const char *path, char hex[65]);
/* Copy from to a temporary name beside to, then rename it over to; hex (may be NULL)
 * gets the content's SHA-256. */
int deploy_copy(cdm_ctx *ctx, const char *from, const char *to, bool executable, char hex[65]);
/* A symbolic link to target made beside path, then renamed over it. */
int deploy_link(cdm_ctx *ctx, const char *target, const char *path);
/* Keep the file at path in <root>/.deployed/<sha256> (once per content). */
int deploy_keep(cdm_ctx *ctx, const char *path, const char *sha256);

#endif
