/* NVIDIA's published hashes of official cuDNN archives (NVIDIA's published manifests and hashes).
 */
#ifndef CDM_OFFICIAL_H
#define CDM_OFFICIAL_H

#include <stdbool.h>
#include <stddef.h>

/* The official archive name for a sha256, or NULL when the hash is not a known release. */
const char *official_archive_for(const char *sha256);

/* NVIDIA's archives from before its manifests (cuDNN 8.2 and older, which TensorFlow 2.5 to
 * 2.11 and old PyTorch builds still need), under REDIST_NVIDIA_LEGACY in folder. Their sizes
 * were never published with them. */
#define REDIST_NVIDIA_LEGACY "https://developer.download.nvidia.com/compute/redist/cudnn/"
struct official_legacy {
    const char *folder; /* "v8.1.1" */
    const char *name;   /* "cudnn-11.2-linux-x64-v8.1.1.33.tgz" */
    const char *sha256;
};
extern const struct official_legacy official_legacy_archives[];
extern const size_t official_legacy_count;

#endif
