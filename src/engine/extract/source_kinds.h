/*
 * The forms cuDNN comes in, one row each (source_kinds.c): how a file of that form is known,
 * what it says of itself before it is unpacked (version, CUDA major, platform), which of
 * its entries make the install, and what the unpacked files must match. Every row then
 * goes through the same entry checks, staging and record (install.c), and the same commit
 * (journal_install.c).
 *
 * How to add one (docs/adding-a-source-kind.md walks through the wheel as it was added):
 *   1. A reader in this room (wheel.c, conda.c, deb.c, rpm.c are the models): its file
 *      name rule (claims) and what the file says of itself (read), from its own metadata,
 *      never from its name alone when it has metadata.
 *   2. Its entry_select (cdm_archive.h): the entries that make the install, mapped to the
 *      store's layout (lib/, include/, bin/). Without one, every entry must lie below one
 *      top folder, as in NVIDIA's archives.
 *   3. Its check, when the form carries its own hashes (a wheel's RECORD, a conda
 *      package's paths.json): the unpacked files against them, before anything is recorded.
 *   4. One row in source_kinds[], before "archive", which takes every name the others
 *      leave; payload or window when the tar to unpack is inside the file.
 *   5. A generator for tests (tests/make_wheel.py, make_conda.py, make_deb.py, make_rpm.py)
 *      and a scenario in tests/cli/ that installs it, refuses its hostile variants and is
 *      seen failing first.
 */
#ifndef CDM_SOURCE_KINDS_H
#define CDM_SOURCE_KINDS_H

#include "cdm_archive.h"
#include "version.h"
#include "conda.h"
#include "deb.h"
#include "rpm.h"
#include "wheel.h"

struct source;

struct source_kind {
    const char *name; /* the record's source, and the noun of messages: "archive", "wheel" */
    const char *says; /* where its version is read, for messages: "name", "METADATA" */
    bool (*claims)(const char *file_name);
    /* What the file says of itself, into s->name; an error names the file and the fix. */
    int (*read)(cdm_ctx *ctx, const char *path, const char *file_name, struct source *s);
    /* After unpacking into dest, before anything is recorded: the form's own hashes (NULL:
     * none). */
    int (*check)(cdm_ctx *ctx, const char *path, const struct source *s, const char *dest,
                 const struct extract_result *x);
    /* The tar to unpack when it is not the file itself (a .conda's pkg-*.tar.zst), copied
     * into dir (a staging folder); *payload NULL: the file itself. NULL: always itself. */
    int (*payload)(cdm_ctx *ctx, const char *path, const char *dir, char **payload);
    /* The tar to unpack lies in the file as it is, stored (a .deb's data.tar.* member):
     * its bytes' place, *size of them from *offset. NULL: the file is the tar. */
    int (*window)(cdm_ctx *ctx, const char *path, uint64_t *offset, uint64_t *size);
    /* One version is several files of this form, each a part of the install (NVIDIA's
     * Debian and RPM packages, s->pkg): install_parts.c joins them. */
    bool parts;
};

struct source {
    const struct source_kind *kind;
    struct archive_name name;          /* version, CUDA major, platform, layout */
    const struct entry_select *select; /* the entries that make the install; NULL: all below
                                        * the one top folder */
    struct wheel_info wheel;           /* a wheel's dist-info */
    struct conda_info conda;           /* a conda package's info/ */
    struct syspkg pkg;                 /* a Debian or RPM package's identity and list of files */
    const struct arriving *arriving;   /* the file still downloading; NULL: whole */
};

/* The kind of the file at path (file_name: its name as the user or the manifest gave it),
 * and what it says of itself; arriving: the file is still downloading (NULL: whole), read
 * as it comes (a wheel's dist-info, asked for ahead). */
int source_open(cdm_ctx *ctx, const char *path, const char *file_name,
                const struct arriving *arriving, struct source *out);
void source_free(struct source *s);

#endif
