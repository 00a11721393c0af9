/* Reading a cuDNN archive in one streaming pass: hash, check, extract, describe. */
#ifndef CDM_CDM_ARCHIVE_H
#define CDM_CDM_ARCHIVE_H

#include "db.h"
#include "base/strmap.h"

/* Which folders an extracted tree has: fed every relative path, in any order. */
struct layout_scan {
    bool bin, bin_x64, lib, lib_x64, lib64;
    /* targets/ppc64le-linux/{lib,include}, sized as the record's lib_dir and include_dir */
    char target_lib[32], target_include[48];
    bool include;
    unsigned dlls, shared_objects;
};
void layout_note(struct layout_scan *scan, const char *rel_path);
/* The folders to record (in's bin_dir, lib_dir, include_dir); bin "" when the archive has
 * none. */
void layout_result(const struct layout_scan *scan, struct cdm_install_info *in);
/* "windows", "linux" or "" from the libraries seen. */
const char *layout_os(const struct layout_scan *scan);

/* The part of an archive that is the install, for a source that is not NVIDIA's archive:
 * a wheel's nvidia/cudnn/ beside its dist-info, a conda package's lib/ and include/ beside
 * its info/. The entries outside it are passed over unwritten (a name that leaves its
 * folder is refused wherever it is); below it, the folder's own name stands for the
 * archive's top folder ("package" for the archive's root). */
struct entry_select {
    const char *below;             /* "nvidia/cudnn", "Library"; "": the archive's root */
    const char *const *only;       /* the folders below it taken, NULL-ended; NULL: all */
    const char *const *skip_names; /* base names passed over below it, NULL-ended */
    /* In place of the three above, for a package whose files lie scattered in the system's
     * folders (a Debian package's usr/lib/<triplet>/): the path below the install that an
     * entry's normalised path goes to ("lib/libcudnn.so.9"), written into out; NULL for an
     * entry passed over. link: the entry is a symbolic link. */
    const char *(*map)(const char *path, bool link, char *out, size_t size);
};

/* A file still arriving (a download unpacked while it comes, download_stream.c): the
 * extraction reads what is there and waits for more. */
struct arriving {
    uint64_t size; /* the whole file's bytes, as its manifest gives them */
    /* Wait until the file holds more than have bytes: their count; have once the whole file
     * came and the download is done with it; negative, its message set in ctx, when the
     * download failed. */
    long long (*wait)(void *arg, cdm_ctx *ctx, uint64_t have);
    /* A zip is read through its directory, at its end: the bytes that the download has not
     * brought yet can be had ahead of it by range requests (the directory and the entries'
     * headers). Copy at most n bytes at offset into buf from those had ahead: their count,
     * 0 when none are there. fetch: ask the server for them first (a few KiB from offset)
     * when they are not there. NULL for a file read in one pass (a .tar.xz). */
    size_t (*ahead)(void *arg, uint64_t offset, void *buf, size_t n, bool fetch);
    void *arg;
};

/* Whether a file of this name can be unpacked while it arrives: a .tar.xz where this build
 * decodes xz on its own (not on Windows, which reads no .tar.xz), or a zip. */
bool archive_unpacks_arriving(const char *name);
/* Whether it is read through a directory at its end (a zip, a wheel), which then comes
 * first. */
bool archive_is_zip_name(const char *name);

struct extract_limits {
    unsigned long long max_total_size;
    unsigned long long max_entries;
    unsigned threads;                  /* at least 1 */
    unsigned long long thread_memory;  /* the bound of liblzma's threads' memory */
    const struct entry_select *select; /* NULL: every entry, below the one top folder */
    /* The files of an install's other parts unpacked before it (NVIDIA's Debian packages:
     * the runtime's, when the dev package's links point to them), which its links may
     * point to and its files may not replace; NULL: none. */
    const struct extract_result *beside;
    /* The archive is part_size bytes of the file from part_offset (a Debian package's
     * data.tar.*, read where it lies in the .deb); part_size 0: the whole file. */
    uint64_t part_offset, part_size;
    const struct arriving *arriving; /* NULL: the file is whole */
};

struct extract_result {
    char sha256[65]; /* of the whole archive file */
    uint64_t archive_size;
    uint64_t extracted_size; /* bytes of regular files */
    char top[256];           /* the single top folder (entry_checker.top) */
    char unpacked_by[96];    /* how: "zip, 2 threads, 39 of 39 files inflated by ISA-L" */
    struct layout_scan scan;
    bool header_found;
    int major, minor, patch; /* from cudnn_version.h, or cudnn.h for v7 */
    struct db_file *files;   /* every entry below the top folder */
    size_t file_count;
    char **strings; /* owns the files' strings */
    size_t string_count;
};
void extract_result_free(struct extract_result *r);

/* Stream the archive at path into dest (an empty folder made by the caller). On failure
 * dest may hold part of the content: the caller deletes it. */
int archive_extract(cdm_ctx *ctx, const char *path, const char *dest,
                    const struct extract_limits *limits, struct extract_result *result);

/* A zip read through its central directory (zip_reader.c): a seekable libarchive reader of
 * the zip at path, NULL with the error in ctx; the error after libarchive failed on it;
 * closing both. */
struct archive;
struct zip_source;
struct archive *zip_open(cdm_ctx *ctx, const char *path, struct zip_source **src);
/* The same of a zip still arriving (NULL: whole); fetch: what is not there yet is asked
 * for ahead of the download (the walk of the headers, zip_in.h). */
struct archive *zip_open_arriving(cdm_ctx *ctx, const char *path, const struct arriving *arriving,
                                  bool fetch, struct zip_source **src);
int zip_failed(cdm_ctx *ctx, const char *path, struct archive *a, struct zip_source *src);
/* The same, naming the entry whose header libarchive warned about (NULL: none known). */
int zip_failed_at(cdm_ctx *ctx, const char *path, struct archive *a, struct zip_source *src,
                  const char *entry);
void zip_close(struct archive *a, struct zip_source *src);

/* archive_extract for a zip, its entries inflated by several threads (zip_extract.c). */
int zip_extract(cdm_ctx *ctx, const char *path, const char *dest,
                const struct extract_limits *limits, struct extract_result *result);

/* Only hash the archive (to tell whether it is the one installed already). */
int archive_hash(cdm_ctx *ctx, const char *path, char sha256[65], uint64_t *size);

#endif
