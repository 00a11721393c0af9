/*
 * A version that comes as several packages (NVIDIA's Debian packages: the runtime
 * libraries, the headers, the development links), each a part of one install. Given
 * together (cdm install A.deb B.deb) or one after the other: a part given alone is kept
 * (its path and hash, in install_parts) until the parts hold libraries and headers; the
 * package that completes the install has every kept part unpacked beside its own, each
 * checked against its own md5sums, and one install is committed of them all.
 */
#ifndef CDM_INSTALL_PARTS_H
#define CDM_INSTALL_PARTS_H

#include "checksum.h"
#include "source_kinds.h"

struct kept_part {
    struct source src;
    char *path;
    char sha256[65]; /* kept from an earlier command: its hash then; "" for a file given
                      * together with the one installed */
};

struct parts {
    struct kept_part *kept; /* the other packages kept for the id, read again */
    size_t count;
    bool libraries, headers;         /* what the parts hold, with the file given */
    bool complete;                   /* both */
    const struct kept_part *runtime; /* the kept part with the libraries, else NULL */
    bool took_together;              /* every file given together is one of the parts */
};

/* The other parts of id beside src (the file given): the files given together
 * with it (together, NULL-terminated), then the packages kept for id by earlier commands (a
 * kept file gone or changed since is forgotten, said in a note); src's own package, or one
 * given together, stands for a kept one. */
int parts_gather(cdm_ctx *ctx, const struct source *src, const char *id,
                 const char *const *together, struct parts *p);
/* Keep archive (its SHA-256 sha) as a part of id, beside the parts p gathered. completes:
 * what the parts still wait for, for the message ("the headers package ..."). */
int parts_keep(cdm_ctx *ctx, const char *archive, const struct source *src, const char *id,
               const char *sha, const struct parts *p, char *completes, size_t size);
/* Every part unpacked into tmp, the file given (archive, checked against sums) among the
 * kept ones: the runtime first, then the headers, then the links, each checked against its
 * md5sums; their records into x, as one file's. */
int parts_unpack(cdm_ctx *ctx, const struct parts *p, const char *archive, const struct source *src,
                 const struct checksums *sums, const char *tmp, struct extract_result *x);
/* A part given for an id installed already: the files it brings are the install's. */
int parts_same_files(cdm_ctx *ctx, const struct cdm_install_info *existing, const char *archive,
                     const struct extract_result *x);
/* The versioned libraries of an installed id (lib/libcudnn_ops.so.9), as files that a
 * part given for it may link to (its dev package's libcudnn_ops.so). extract_result_free. */
int parts_recorded_libraries(cdm_ctx *ctx, const struct cdm_install_info *existing,
                             struct extract_result *out);
void parts_free(struct parts *p);

#endif
