/*
 * cuDNN as NVIDIA's Debian packages, from its CUDA repositories: libcudnn9-cuda-12 (the
 * runtime libraries), libcudnn9-headers-cuda-12 (the headers, from 9.14 on), and
 * libcudnn9-dev-cuda-12 (the development links; the headers too before 9.14); libcudnn8 and
 * libcudnn8-dev for cuDNN 8. A .deb is an ar archive of debian-binary, control.tar.* and
 * data.tar.* (gzip, xz or zstd). What a package says of itself is read from its control
 * (Package, Version, Architecture) and its md5sums before anything is unpacked; every file
 * taken must then match its md5sums row.
 *
 * Its files lie in usr/lib/<triplet>/ and usr/include/<triplet>/. They go to lib/ and
 * include/, the headers under the names NVIDIA's archive gives them: cudnn_v9.h becomes
 * cudnn.h, the name update-alternatives (or, from 9.14 on, the package's own link) gives it
 * on the system. One version is several packages: each is a part, and the install is made
 * once the parts given hold libraries and headers (install_deb.c).
 */
#ifndef CDM_DEB_H
#define CDM_DEB_H

#include "cdm_archive.h"
#include "version.h"

struct deb_row {
    char *path;   /* as md5sums writes it: usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0 */
    char md5[33]; /* lowercase hex */
};

struct deb_info {
    char package[96];      /* control's Package: libcudnn9-cuda-12 */
    char version_text[64]; /* control's Version: 9.1.0.70-1 */
    struct version version;
    int cuda_major; /* from the package's name (-cuda-12), else its version (+cuda12.2) */
    char platform[32];
    bool libraries, headers; /* its md5sums list cuDNN's shared libraries, headers */
    struct deb_row *rows;    /* md5sums */
    size_t count;
};

/* True for a name ending in .deb. */
bool deb_file_name(const char *file_name);

/* Read the package's control and md5sums (untrusted, bounded) into out. */
int deb_read(cdm_ctx *ctx, const char *path, struct deb_info *out);

/* The package's entries that make the install, moved to lib/ and include/. */
extern const struct entry_select deb_select;

/* The package's data.tar.*, copied into dir (a staging folder the caller removes); its path
 * in *payload. */
int deb_payload(cdm_ctx *ctx, const char *path, const char *dir, char **payload);

/* After the unpacking into dest: every file taken matches its md5sums row, every row of
 * the files taken was unpacked. */
int deb_check_md5sums(cdm_ctx *ctx, const char *path, const struct deb_info *info, const char *dest,
                      const struct extract_result *x);

void deb_info_free(struct deb_info *info);

#endif
