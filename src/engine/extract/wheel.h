/*
 * NVIDIA's cuDNN as a Python wheel (nvidia-cudnn-cu11, -cu12, -cu13): a zip whose
 * nvidia/cudnn/ folder holds include/ and lib/ (Linux) or bin/, include/ and lib/x64/
 * (Windows), beside a dist-info folder. What the wheel says of itself is read from the
 * dist-info before anything is unpacked: the version from METADATA, the CUDA major from the
 * distribution's name (-cuNN), the platform from WHEEL's tag, and every file's sha256 and
 * size from RECORD, which the unpacked files must match (PEP 376, PEP 427).
 */
#ifndef CDM_WHEEL_H
#define CDM_WHEEL_H

#include "cdm_archive.h"
#include "listed.h"
#include "version.h"
#include "base/strmap.h"

/* The entries of a wheel that make the install: nvidia/cudnn/, without Python's package
 * markers (__init__.py), which are no part of cuDNN. */
extern const struct entry_select wheel_select;

struct wheel_info {
    char dist[64]; /* METADATA's Name: nvidia-cudnn-cu12 */
    struct version version;
    int cuda_major;
    char platform[32];   /* linux-x86_64, linux-sbsa, windows-x86_64 */
    char tag[64];        /* WHEEL's Tag: py3-none-manylinux2014_x86_64 */
    struct listed files; /* RECORD's rows with a hash */
};

/* True for a name ending in .whl. */
bool wheel_file_name(const char *file_name);

/* Read the dist-info of the wheel at path (untrusted, bounded) into out; arriving: the
 * wheel is still downloading (NULL: whole), its dist-info asked for ahead. Fails, naming
 * the wheel and what to do, when it is no NVIDIA cuDNN wheel or its dist-info cannot be
 * read. */
int wheel_read(cdm_ctx *ctx, const char *path, const struct arriving *arriving,
               struct wheel_info *out);

/* The same from a wheel pip installed: its dist-info folder in site-packages (METADATA,
 * WHEEL and RECORD, read bounded). */
int wheel_read_installed(cdm_ctx *ctx, const char *dist_info, struct wheel_info *out);

/* After the unpacking (limits->select = &wheel_select): every file written matches its
 * RECORD row (sha256 and size), and every RECORD row of nvidia/cudnn/ was written. */
int wheel_check_record(cdm_ctx *ctx, const char *path, const struct wheel_info *w,
                       const struct extract_result *x);

void wheel_info_free(struct wheel_info *w);

/* RECORD's digest (urlsafe base64 without padding, PEP 376) as hex into out; false when it
 * is not a 32-byte digest. */
bool wheel_digest_hex(const char *b64, char out[65]);

#endif
