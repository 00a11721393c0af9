/*
 * cdm's checks: verify (installed files against their record) and doctor (why a project's
 * cuDNN does or does not load). Part of the core's API in cdm.h, which includes it; kept
 * apart only so that each header reads in one sitting.
 */
#ifndef CDM_CHECKS_H
#define CDM_CHECKS_H

#include "cdm.h"

/* ---- verify ------------------------------------------------------------------------- */

enum cdm_verify_kind {
    CDM_VERIFY_MISSING, /* recorded at install, gone now */
    CDM_VERIFY_CHANGED, /* there, but another size, hash, link target or kind */
    CDM_VERIFY_EXTRA,   /* in the version folder, never installed by cdm */
};
struct cdm_verify_issue {
    const char *install_id;
    const char *path; /* relative to the version folder, '/' separated */
    enum cdm_verify_kind kind;
    const char *detail;
};
typedef void (*cdm_verify_fn)(void *arg, const struct cdm_verify_issue *issue);
struct cdm_verify_result {
    size_t installs, files; /* checked */
    size_t missing, changed, extra;
    size_t mode_unchecked; /* files recorded without a mode (an older cdm, or Windows) */
    size_t views;          /* views of those installs checked (cdm link --toolkit) */
};
/* Re-hash every file of the install spec names (NULL: every install) against the sizes,
 * SHA-256, permission bits and link targets recorded at install; fn is called for each difference.
 * Returns CDM_OK when the check ran, whatever it found (see the counts). */
int cdm_verify(cdm_ctx *ctx, const char *spec, int cuda, cdm_verify_fn fn, void *arg,
               struct cdm_verify_result *result);

/* ---- sbom --------------------------------------------------------------------------- */

/* One entry of an install's folder, as read now (and found as recorded). */
struct cdm_sbom_file {
    char *path;        /* relative to the install folder, '/' separated */
    uint64_t size;     /* bytes (0 for a link) */
    char sha256[65];   /* of the bytes read now, equal to the record */
    char sha1[41];     /* SPDX 2.3 asks every file for one */
    char *link_target; /* a symbolic link's target; NULL for a regular file. A link is
                        * described by the file of the install it leads to (its size and
                        * hashes); one that leads to none has "" hashes */
};
struct cdm_sbom {
    struct cdm_install_info install; /* with its source: the file's kind, name and hash */
    char project[4096];              /* the project asked about ("" for an install id) */
    struct cdm_sbom_file *files;     /* in path order */
    size_t nfiles;
    char license_file[512]; /* the install's own licence file, relative ("" when none) */
    char *license_text;     /* its text (NULL when none) */
    bool accepted;          /* the licence accepted on record (cdm install --accept-license) */
    char accepted_how[16];  /* "option" or "config" */
    int64_t accepted_at;    /* seconds since the epoch */
    int64_t created;        /* now, or SOURCE_DATE_EPOCH (a reproducible bill) */
    char uuid[37];          /* the bill's own name: from the install, its files and created */
    /* SPDX's package verification code: the SHA-1 of the files' SHA-1s, sorted, joined */
    char verification_code[41];
};
/* The bill of materials of the install spec names, or of a project's install when spec is a
 * folder (NULL: the nearest project): every file read and hashed (SHA-256 and SHA-1), each
 * checked against its record, so that the bill never vouches for a changed file (refused:
 * 'cdm verify' says which). Free with cdm_sbom_free. */
int cdm_sbom(cdm_ctx *ctx, const char *spec, int cuda, struct cdm_sbom *out);
void cdm_sbom_free(struct cdm_sbom *sbom);

/* ---- doctor ------------------------------------------------------------------------- */

enum cdm_check_status { CDM_CHECK_OK, CDM_CHECK_WARN, CDM_CHECK_FAIL, CDM_CHECK_SKIP };

struct cdm_check {
    char *name; /* "store.index", "library.load", "deps.libcudnn.so.9", ... */
    enum cdm_check_status status;
    char *detail; /* one line */
    char *fix;    /* what to do; NULL when there is nothing to do */
};

struct cdm_doctor_request {
    const char *project; /* a project folder; NULL: the nearest from the current folder */
    const char *spec;    /* a version to examine instead of (or without) a project's */
    int cuda;
    /* cdm doctor -- CMD: run this program (NULL-terminated argv) in the environment
     * `cdm activate` gives the project, and report what its processes loaded. NULL: none. */
    char *const *command;
    bool command_stdout_to_stderr; /* its standard output goes to stderr (for --json) */
    bool exec;                     /* run it as cdm exec does: every cuDNN library from the
                                    * project's install (Linux), to show the difference */
    unsigned timeout_s; /* kill it and its process group after this many seconds (Linux); 0:
                         * wait as long as it runs */
    bool allow_cpu;     /* a linked project's command that ran without the GPU (no cuDNN or
                         * no CUDA driver loaded) passes the run.gpu check */
};

/* A CUDA library a command's process loaded (cdm doctor -- CMD). */
struct cdm_loaded {
    char *path;      /* as the loader opened it */
    char *real_path; /* links resolved */
    char *kind;      /* "cudnn", "cudart", "cublas", "cublasLt", "nvrtc" */
    char *install;   /* the store's install it belongs to; NULL outside the store */
    char *folder;    /* the folder it really is in */
    char *version;   /* "" when unknown */
    char *why;       /* why the loader took this file */
    uint64_t pid;    /* the process that loaded it first */
};

struct cdm_doctor_report {
    struct cdm_check *checks;
    size_t count;
    char project[4096];        /* "" when no project was examined */
    char install_id[64];       /* "" when no install was examined */
    bool ran;                  /* the request's command ran */
    int exit_code;             /* its exit status (128 + N when killed by signal N) */
    int exit_signal;           /* the signal that ended it, 0 when it exited */
    struct cdm_loaded *loaded; /* in the order they were loaded */
    size_t loaded_count;
};

/* Run the layered checks (store, library, dependencies, shadowing, driver and toolkit,
 * same install, Python environments, and with a command what it really loaded).
 * Returns CDM_OK when the checks ran, whatever they found; a failed check is in the
 * report. Fails only for a bad request (an unknown version). */
int cdm_doctor(cdm_ctx *ctx, const struct cdm_doctor_request *req,
               struct cdm_doctor_report *report);
void cdm_doctor_report_free(struct cdm_doctor_report *report);

/* The doctor's questions to the cuDNN library at path (load, version, CUDA runtime, a
 * handle), asked in this process, each answer one line handed to emit. Where the platform
 * cannot fork (Windows), the doctor runs cdm itself as `cdm CDM_PROBE_CHILD_ARG PATH` and
 * reads the lines from its output: the front end answers that command line with this, so
 * that a library which crashes or exits in cudnnGetVersion ends that process, not the
 * doctor's. */
#define CDM_PROBE_CHILD_ARG "--cdm-probe-child"
void cdm_probe_answers(const char *path, void (*emit)(void *arg, const char *line), void *arg);
const char *cdm_check_status_name(enum cdm_check_status status); /* "ok", "warn", ... */

#endif
