/*
 * cuDNN as a conda package (conda-forge's cudnn, NVIDIA's channel): a .tar.bz2, or a .conda
 * (a zip holding info-*.tar.zst and pkg-*.tar.zst). What it says of itself is read from
 * info/ before anything is unpacked: the version from index.json, the CUDA major from its
 * cuda-version dependency, the platform from its subdir, and every file's sha256 and size
 * from paths.json, which the unpacked files must match. On Linux the install is the
 * package's lib/ and include/; on Windows its Library/bin, Library/include, Library/lib.
 */
#ifndef CDM_CONDA_H
#define CDM_CONDA_H

#include "cdm_archive.h"
#include "listed.h"
#include "version.h"
#include "base/strmap.h"

struct conda_info {
    char name[64]; /* index.json's name: cudnn, libcudnn */
    struct version version;
    int cuda_major;
    char platform[32];   /* linux-x86_64, linux-sbsa, windows-x86_64 */
    bool windows;        /* its files are under Library/ */
    struct listed files; /* paths.json's rows */
};

/* True for a name ending in .conda or .tar.bz2 (conda's two forms). */
bool conda_file_name(const char *file_name);

/* Read the package's info/ (untrusted, bounded) into out. */
int conda_read(cdm_ctx *ctx, const char *path, struct conda_info *out);

/* The same from a conda environment: the package's record in its conda-meta/ (the JSON of
 * index.json's fields with paths_data, which holds paths.json's rows). */
int conda_read_installed(cdm_ctx *ctx, const char *meta, struct conda_info *out);

/* The entries of the package that make the install, for its platform. */
const struct entry_select *conda_select(const struct conda_info *info);

/* The tar to unpack: the .tar.bz2 itself (*payload = NULL), or a .conda's pkg-*.tar.zst
 * copied out into dir (a staging folder the caller removes), its path in *payload. */
int conda_payload(cdm_ctx *ctx, const char *path, const char *dir, char **payload);

/* After the unpacking: every file written matches its paths.json row, every row of the
 * selected folders was written. */
int conda_check_paths(cdm_ctx *ctx, const char *path, const struct conda_info *info,
                      const struct extract_result *x);

void conda_info_free(struct conda_info *info);

#endif
