/*
 * cuDNN as a Linux distribution's packages, NVIDIA's from its CUDA repositories: Debian
 * packages (deb.c) and RPM packages (rpm.c). What both share is here: what a package says of
 * itself (its name, version, architecture, and its list of files with their digests: a
 * .deb's md5sums, an RPM header's SHA-256 file digests), where its files go in an install,
 * and the check of the unpacked files against that list.
 *
 * NVIDIA splits one version into packages: the runtime libraries (libcudnn9-cuda-12), the
 * headers (libcudnn9-headers-cuda-12, from 9.14 on) and the development links
 * (libcudnn9-dev-cuda-12, or -devel- for RPM, which held the headers before 9.14); libcudnn8
 * and libcudnn8-dev for cuDNN 8. Each is a part of the install (install_parts.c).
 *
 * The files lie in the system's folders: usr/lib/<triplet>/ (Debian), usr/lib64/ (RPM),
 * usr/include/<triplet>/ or usr/include/. They go to lib/ and include/, the headers under the
 * names NVIDIA's archive gives them: cudnn_v9.h becomes cudnn.h, the name update-alternatives
 * (or, from 9.14 on, the package's own link) gives it on the system.
 */
#ifndef CDM_SYSPKG_H
#define CDM_SYSPKG_H

#include "cdm_archive.h"
#include "version.h"

struct syspkg_row {
    char *path;      /* as the list writes it, relative: usr/lib64/libcudnn.so.9.1.0 */
    char digest[65]; /* lowercase hex: MD5 (32 digits) or SHA-256 (64) */
};

struct syspkg {
    const char *noun;      /* in messages: "Debian package", "RPM package" */
    const char *list;      /* its list of files: "md5sums", "header's file digests" */
    char package[96];      /* libcudnn9-cuda-12 */
    char version_text[64]; /* as the package writes it: 9.1.0.70-1 */
    struct version version;
    int cuda_major; /* from the package's name (-cuda-12), else its version (+cuda12.2) */
    char platform[32];
    bool sha256;             /* the digests are SHA-256 (an RPM's), else MD5 (md5sums) */
    bool libraries, headers; /* its list holds cuDNN's shared libraries, headers */
    struct syspkg_row *rows;
    size_t count;
};

/* The entries of a package that make the install, moved to lib/ and include/. */
extern const struct entry_select syspkg_select;

/* What the package says of itself, checked: Package (a libcudnn* name), its version
 * (upstream: 9.1.0.70 of 9.1.0.70-1; CUDA: -cuda-12 of the name, else +cuda12.2 or .cuda12.2
 * in version or release), its architecture (amd64/x86_64, arm64/aarch64). The package's
 * fields are in p->package and p->version_text; release may be NULL. */
int syspkg_identify(cdm_ctx *ctx, const char *path, struct syspkg *p, const char *release,
                    const char *arch);

/* Add a row of the package's list (path as it writes it, relative); refused when the path
 * leaves the package or is not plain, or the digest is not of the list's kind. */
int syspkg_add_row(cdm_ctx *ctx, const char *path, struct syspkg *p, const char *name,
                   const char *digest, size_t digest_len);

/* After the unpacking into dest: every file taken matches its row, every row of a file
 * taken was unpacked. */
int syspkg_check(cdm_ctx *ctx, const char *path, const struct syspkg *p, const char *dest,
                 const struct extract_result *x);

void syspkg_free(struct syspkg *p);

#endif
