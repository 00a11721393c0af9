/* Versions, install ids, version specs and NVIDIA's archive names: pure functions. */
#ifndef CDM_VERSION_H
#define CDM_VERSION_H

#include "base/util.h"

#include <stdbool.h>
#include <stddef.h>

struct version {
    int part[4];
    int count; /* how many parts were given: 1 to 4 */
};

/* "8.8.0.121" -> {8,8,0,121}, count 4. False for anything else than 1-4 dotted numbers. */
bool version_parse(const char *s, struct version *v);
/* Compare the parts both have; with equal prefixes the longer one is greater. */
int version_compare(const struct version *a, const struct version *b);
/* True when every part of prefix equals the same part of v ("8.8" matches 8.8.0.121). */
bool version_has_prefix(const struct version *v, const struct version *prefix);
/* "8.8.0.121"; false when it does not fit in size (32 bytes always do: parts have at most
 * seven digits). */
bool version_format(const struct version *v, char *out, size_t size);

/* An install's id, the one format the store's folders, the index and cudnn.lock share:
 * "8.8.0.121-cuda11". False when it does not fit in size. */
bool install_id_format(const char *version, int cuda, char *out, size_t size);
/* The version part of an install id: "8.8.0.121" of "8.8.0.121-cuda11" (the whole id when it
 * has no CUDA part); "" and false when it does not fit in size. */
bool install_id_version(const char *id, char *out, size_t size);

/* What a user may type for a version: 8, 8.8, 8.8.0, 8.8.0.121, 8.8.0.121-cuda11, latest. */
struct version_spec {
    bool latest;
    struct version version; /* unset when latest */
    int cuda;               /* 0 when the spec names none */
};
bool version_spec_parse(const char *s, struct version_spec *spec);
bool version_spec_matches(const struct version_spec *spec, const struct version *v, int cuda);

/* Choosing among the candidates for a version spec (installs, archives in the sources):
 * the newest version wins, and the names of every candidate with that version are kept,
 * so that several CUDA variants can be listed. */
struct version_pick {
    bool found;
    struct version version;
    struct strbuf names; /* ", " between them */
    int count;           /* candidates with the newest version */
};
#define VERSION_PICK_INIT                                                                          \
    {                                                                                              \
        false, {{0}, 0}, STRBUF_INIT, 0                                                            \
    }
/* Offer a candidate; true when it is newer than all before (the caller keeps it). */
bool version_pick_offer(struct version_pick *pick, const struct version *v, const char *name);
void version_pick_free(struct version_pick *pick);

/* The encodings of CUDNN_VERSION / cudnnGetVersion(): 8.8.0 -> 8800, 9.1.0 -> 90100. */
long cudnn_version_encode(int major, int minor, int patch);
void cudnn_version_decode(long value, int *major, int *minor, int *patch);

/* What NVIDIA's file name says about an archive. */
struct archive_name {
    struct version version; /* 4 parts */
    int cuda_major;
    int cuda_minor;    /* -1 when the name gives only the major */
    char platform[32]; /* as the current names spell it: linux-x86_64, windows-x86_64 */
    char layout;       /* 'A' old cuda/ folder, 'B' 8.3.1-8.4, 'C' 8.5 and later */
    char stem[256];    /* the name without its extension (layout B/C: the top folder) */
};
/* Parse a file name (not a path). False when it is not a cuDNN archive name. */
bool archive_name_parse(const char *file_name, struct archive_name *out);
/* NVIDIA's wheel by its name (PEP 427): nvidia_cudnn_cu12-9.1.0.70-py3-none-
 * manylinux2014_x86_64.whl gives 9.1.0.70, CUDA 12, linux-x86_64, layout C. False for any
 * other name. What a wheel says inside (its dist-info) decides at install; this name finds
 * it in a folder. */
bool wheel_name_parse(const char *file_name, struct archive_name *out);
/* A wheel's platform tag as cdm names platforms: "manylinux2014_x86_64" -> "linux-x86_64",
 * "win_amd64" -> "windows-x86_64" (aarch64: NVIDIA's server builds, linux-sbsa); NULL when
 * cdm installs for none. */
const char *wheel_platform_of_tag(const char *platform_tag);
/* True for the extensions cdm reads: .zip .tar.xz .txz .tgz .tar.gz */
bool archive_has_known_extension(const char *file_name);

/* The layout a version ships in ('A', 'B' or 'C'). */
char layout_for_version(const struct version *v);

#endif
