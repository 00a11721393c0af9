/*
 * cuDNN's library files as the loader sees them: their names per platform and major, the
 * ones a folder holds, and the version of one without loading it.
 */
#ifndef CDM_CUDNN_LIB_H
#define CDM_CUDNN_LIB_H

#include "internal.h"

/* The main library a program built for major loads: libcudnn.so.<major>, or
 * cudnn64_<major>.dll on Windows. malloc'd. */
char *cudnn_lib_name(bool windows, int major);

/* The cuDNN libraries in folder dir by the names programs load them by (POSIX: the
 * libcudnn*.so.<major> sonames, not the .so links or the full versions; Windows: every
 * cudnn*.dll). NULL-terminated, malloc'd (strv_free); empty when dir cannot be read. */
char **cudnn_libs_in(cdm_ctx *ctx, const char *dir, bool windows, int major);

/* A cuDNN library's version ("9.1.0") without loading it: from a versioned file name
 * (libcudnn.so.9.1.0, after following links), else from a cudnn_version.h (or cuDNN 7's
 * cudnn.h) beside its folder. "" when neither says. */
void cudnn_version_of_file(const char *path, char *out, size_t size);

#endif
