/*
 * Credentials for a registry, found where container tools keep them:
 * CDM_REGISTRY_USERNAME and CDM_REGISTRY_PASSWORD first; else the auth file of
 * `docker login` ($DOCKER_CONFIG/config.json, else ~/.docker/config.json) or of podman and
 * skopeo (REGISTRY_AUTH_FILE), its "auths" entry for the registry. Credential helpers
 * (credsStore) are not run: cdm starts no program to authenticate.
 */
#ifndef CDM_OCI_CREDS_H
#define CDM_OCI_CREDS_H

#include "internal.h"

/* "Authorization: Basic ..." for registry (host[:port]) into *header (malloc'd);
 * CDM_ENOTFOUND (no message) when none is known, CDM_ECONFIG naming a file that is no
 * auth file. */
int oci_creds_basic(cdm_ctx *ctx, const char *registry, char **header);

/* Docker Hub, under any of its names: its API is at registry-1.docker.io, its credentials
 * are kept under https://index.docker.io/v1/, and a one-part repository is library/'s. */
bool oci_docker_hub(const char *registry);

/* What to do when a registry refuses: where credentials are read from. */
const char *oci_creds_hint(void);

#endif
