/* NVIDIA's published hashes of official cuDNN archives (CUDNN_FACTS.md section 5). */
#ifndef CDM_OFFICIAL_H
#define CDM_OFFICIAL_H

#include <stdbool.h>

/* The official archive name for a sha256, or NULL when the hash is not a known release. */
const char *official_archive_for(const char *sha256);

#endif
