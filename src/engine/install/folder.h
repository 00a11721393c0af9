/*
 * Where cuDNN lies in a folder on the disk, and which of its files are cuDNN's (folder.c),
 * for cdm install DIR (install_folder.c) and cdm scan (scan.c). Folders as users have them:
 * a Python environment's wheel (the venv, its site-packages, or nvidia/cudnn itself, the
 * dist-info beside it read); a CUDA-style folder (include/ beside lib/, lib64/, lib/x64,
 * bin/); the Windows installer's tree ({bin,include,lib}/<CUDA major.minor>/[x64]).
 */
#ifndef CDM_FOLDER_H
#define CDM_FOLDER_H

#include "wheel.h"

struct folder {
    char *root;   /* where include/ lies */
    char *sub;    /* the installer tree's CUDA folder ("12.9"), else NULL */
    char *record; /* the RECORD paths' prefix for root ("nvidia/cudnn/"), else NULL */
    struct wheel_info wheel;
    bool has_wheel;   /* a wheel's dist-info, or a conda package's record, read into wheel */
    bool conda;       /* that record is conda-meta's */
    const char *what; /* for messages: "the Python environment's wheel", "the folder" */
};

/* Find cuDNN in dir (for the installer's tree, the CUDA major cuda, 0: the only one).
 * CDM_ENOTFOUND, with a message naming dir, when it holds none. folder_free in any case. */
int folder_locate(cdm_ctx *ctx, const char *dir, int cuda, struct folder *f);
void folder_free(struct folder *f);

/* A cuDNN file of the folder: where it is below root, where it goes in an install. */
struct folder_file {
    char *from, *to;
};
/* cuDNN's own files of the folder (cudnn*.h, libcudnn*, cudnn*.dll, cudnn*.lib), appended
 * to *files (malloc'd, folder_files_free). */
void folder_list(const struct folder *f, struct folder_file **files, size_t *count);
void folder_files_free(struct folder_file *files, size_t count);
/* A header that may give the version: cudnn_version.h, cudnn.h, and the _v9 forms NVIDIA's
 * Debian packages install (cudnn_version_v9.h), which update-alternatives links. */
bool folder_is_version_header(const char *path);
/* A name of cuDNN's: libcudnn*, cudnn*.h, cudnn*.dll, cudnn*.lib. */
bool folder_is_cudnn_file(const char *name);

#endif
