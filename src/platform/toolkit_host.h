/*
 * Where a CUDA toolkit may be installed on this system: facts only (folders and how they
 * were found); engine/toolkit/toolkit.c reads each one's version and decides.
 */
#ifndef CDM_TOOLKIT_HOST_H
#define CDM_TOOLKIT_HOST_H

#include <stddef.h>

struct toolkit_place {
    char *dir; /* a folder that may hold a toolkit (not checked) */
    char *why; /* how it was found: "CUDA_PATH", "CUDA_PATH_V12_4", "registry", "/usr/local" */
};

/* The places in the order a build would look: Windows: CUDA_PATH, the CUDA_PATH_V*_*
 * variables, then the registry keys NVIDIA's installer writes; elsewhere: CUDA_HOME,
 * CUDA_PATH, /usr/local/cuda, /usr/local/cuda-*, /opt/cuda. *out is malloc'd (free with
 * toolkit_places_free); the same folder may come more than once. */
size_t toolkit_host_places(struct toolkit_place **out);
void toolkit_places_free(struct toolkit_place *v, size_t n);
/* Append a place (dir and why are taken over). */
void toolkit_place_add(struct toolkit_place **v, size_t *n, char *dir, char *why);

#endif
