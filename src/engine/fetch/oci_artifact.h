/*
 * cdm's artifact in a registry: which tag holds a version, and an artifact's manifest and
 * config read and checked before a byte of its archive is fetched.
 *
 * The artifact (cdm push writes it, install/oci_push.c): an OCI image manifest with
 * artifactType OCI_ARTIFACT_TYPE; its config is an OCI image config (so image tools read
 * it) whose "cdm" object says id, version, CUDA major, platform, the kind of source, the
 * archive's name, size and sha256; its one layer is the archive itself, titled with its
 * name. Its default tag is VERSION-cudaN-PLATFORM
 * (oci_tag_for).
 */
#ifndef CDM_OCI_ARTIFACT_H
#define CDM_OCI_ARTIFACT_H

#include "manifest.h"
#include "oci.h"

/* The tag cdm push gives an install by default: "9.1.0.70-cuda12-linux-x86_64". */
void oci_tag_for(const char *version, int cuda, const char *platform, char *out, size_t size);

/* The reference to read: the one o was opened with (its digest, else its tag), else the
 * tag of the newest version spec_text (and cuda, 0: any) matches for platform among the
 * repository's tags; CDM_ENOTFOUND, said, when none does. *reference malloc'd. */
int oci_pick(struct oci *o, const char *spec_text, int cuda, const char *platform,
             char **reference);

/* The artifact at reference: its layer as e (name, size, sha256, version, cuda, platform),
 * the manifest's digest checked against the one o's reference names, the config read and
 * held to the layer. CDM_EARCHIVE naming the reference when it is no artifact of cdm's. */
int oci_read_artifact(struct oci *o, const char *reference, struct manifest_entry *e);

/* The pure parts, for the tests and the fuzzer: the one layer of a manifest's text (false
 * when it is not cdm's artifact: its type, one layer, a sha256 digest, a size, a title
 * that is a plain file name); a config's text said to describe the layer in e (its
 * archive's name and sha256), e's version, platform and CUDA major then filled. */
bool oci_manifest_layer(const char *text, size_t n, struct manifest_entry *e);
bool oci_config_describes(const char *text, size_t n, struct manifest_entry *e);

#endif
