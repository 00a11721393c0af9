/*
 * cuDNN's library files as the loader sees them: their names per platform and major, the
 * ones a folder holds, the version of one without loading it, and the sub-libraries each
 * version opens by bare name at run time (per version, as NVIDIA's archives lay them out),
 * read from an install where it names them.
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
 * (libcudnn.so.9.1.0, after following links), a DLL's version resource (FileVersion
 * "9.1.0.70"), else from a cudnn_version.h (or cuDNN 7's cudnn.h) beside its folder. ""
 * when none says. */
void cudnn_version_of_file(const char *path, char *out, size_t size);

/* The file the loader asks for: base "" is the main library (libcudnn.so.9, cudnn64_9.dll),
 * else a sub-library ("graph": libcudnn_graph.so.9, cudnn_graph64_9.dll). malloc'd. */
char *cudnn_lib_file(const char *base, int major, bool windows);

/* One library that cuDNN opens by name while it runs. */
struct cudnn_sublib {
    char *file;   /* the name asked for: libcudnn_ops.so.9, cudnn_ops64_9.dll */
    char *opener; /* the library that asks for it: the main one, or the graph library */
    bool named;   /* the install's own libraries name it (else it comes from the table) */
};
struct cudnn_sublibs {
    struct cudnn_sublib *v;
    size_t count;
};

/* The sub-libraries cuDNN major.minor opens by name, for the install whose libraries are in
 * lib_dir (NULL: the table alone). The table gives those every release of that major
 * opens; the names the main and graph libraries carry add the newer ones
 * (engines_tensor_ir, ext), and so does a file of such a name in lib_dir. */
void cudnn_sublibs(int major, int minor, bool windows, const char *lib_dir,
                   struct cudnn_sublibs *out);
void cudnn_sublibs_free(struct cudnn_sublibs *s);

/* What a library file name is among the CUDA libraries cdm reports: "cudnn", "cudart",
 * "cublas", "cublasLt", "nvrtc"; NULL for any other file. */
const char *cuda_lib_kind(const char *file_name);

#endif
