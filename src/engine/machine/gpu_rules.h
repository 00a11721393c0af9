/*
 * What a cuDNN build needs of the machine, beside the toolkit tables (compat.h) and the
 * frameworks' rules (frameworks.h): code for each GPU's architecture, per cuDNN version and
 * CUDA major, and a driver that runs its CUDA major. Each row names its source; docs/
 * choosing.md gathers them.
 */
#ifndef CDM_GPU_RULES_H
#define CDM_GPU_RULES_H

#include "compat.h"
#include "platform/loader.h"

/* cuDNN version ("9.10.2.21") built for CUDA major cuda on a GPU of compute capability
 * cc_major.cc_minor: OK when the build has code for it (a cubin of X.y runs on X.z for z
 * >= y), FAIL when the table says it has none, UNKNOWN for a build or a GPU newer than the
 * table. why gets one line, *source the row's source (NULL without a row). */
enum compat_verdict gpu_rule_arch(const char *version, int cuda, int cc_major, int cc_minor,
                                  char *why, size_t why_size, const char **source);

/* A build for CUDA major cuda on the driver d: OK at or above that major's minimum (the
 * minor-version compatibility floor, Linux or Windows), FAIL below it, UNKNOWN when the
 * driver said neither its version nor its CUDA version. */
enum compat_verdict gpu_rule_driver(int cuda, const struct driver_info *d, bool windows, char *why,
                                    size_t why_size);

#endif
