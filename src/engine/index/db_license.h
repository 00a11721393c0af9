/*
 * The install_licenses table: NVIDIA's licence accepted for an install, on record (cdm
 * install --accept-license, or [install] accept_license), as sites that must account for
 * what they run ask (EasyBuild and EESSI want an explicit --accept-eula). cdm sbom reads it.
 */
#ifndef CDM_DB_LICENSE_H
#define CDM_DB_LICENSE_H

#include "db.h"

struct db_license {
    char license[64]; /* what was accepted: "nvidia-cudnn" */
    char how[16];     /* "option" (--accept-license) or "config" ([install] accept_license) */
    long long time;   /* seconds since the epoch */
};

/* Record the acceptance for install id; the first one stands (a later one changes nothing). */
int db_license_accept(cdm_ctx *ctx, const char *id, const char *license, const char *how);
/* The acceptance recorded for id; CDM_ENOTFOUND, without a message, when there is none. */
int db_license_get(cdm_ctx *ctx, const char *id, struct db_license *out);
/* Forget id's acceptance (its install is removed). */
int db_license_drop(cdm_ctx *ctx, const char *id);

#endif
