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
