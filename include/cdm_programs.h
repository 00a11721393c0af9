/*
 * The project's cuDNN beyond the shell: cdm exec, Jupyter kernels, HPC modulefiles and
 * cudnn.lock. Part of the core's API in cdm.h, which includes it (after cdm_activation.h);
 * kept apart only so that each header reads in one sitting.
 */
#ifndef CDM_PROGRAMS_H
#define CDM_PROGRAMS_H

#include "cdm.h" /* its types; cdm.h includes this file in turn, past them */

/* cdm exec: run argv with exactly what cdm activate sets for the project (NULL: the nearest
 * from the current folder, else the user's default), no shell in between. On Linux every
 * cuDNN library its processes load, by name or by path, comes from the project's install
 * where the install has a file of that name (LD_AUDIT with cdm-audit.so, CDM_REDIRECT_DIR),
 * unless no_redirect. POSIX: the command replaces this process, so this returns only when
 * it cannot start; Windows: cdm waits, *exit_code is the command's status. A failure to
 * start sets *exit_code to 127 (no such program) or 126, as shells do. */
struct cdm_exec_request {
    const char *project;
    char *const *argv; /* NULL-terminated; argv[0] looked up on the activated PATH */
    bool no_redirect;  /* the activation's environment alone */
    bool force;        /* run with an install this machine's GPU or driver cannot run (a
                        * warning instead of the refusal) */
    bool check;        /* watch what it loads and fail when it ran without the GPU (no cuDNN
                        * or no CUDA driver loaded): exit_code is the command's, the error
                        * says what it loaded instead */
};
int cdm_exec(cdm_ctx *ctx, const struct cdm_exec_request *req, int *exit_code);

/* cdm kernel install: a Jupyter kernelspec (<Jupyter's data folder>/kernels/NAME, or
 * <prefix>/share/jupyter/kernels/NAME) whose kernel starts through cdm exec, so a notebook
 * runs with the project's cuDNN; cdm kernel remove takes one cdm wrote away (never another). */
struct cdm_kernel_request {
    const char *project; /* NULL: the nearest from the current folder, else the default */
    const char *python;  /* NULL: the project's environment (.venv, venv, VIRTUAL_ENV), else
                          * python3 on PATH */
    const char *name;    /* NULL: cdm-<the project folder's name> */
    const char *prefix;  /* NULL: Jupyter's user data folder */
};
struct cdm_kernel_result {
    char name[128];
    char path[4096]; /* the kernelspec's folder */
    char python[4096];
    char display_name[512];
    char project[4096];
    char install_id[64];
    bool changed; /* false: it was so already */
};
int cdm_kernel_install(cdm_ctx *ctx, const struct cdm_kernel_request *req,
                       struct cdm_kernel_result *out);
int cdm_kernel_remove(cdm_ctx *ctx, const char *name, const char *prefix,
                      struct cdm_kernel_result *out);

/* cdm modulefiles --into DIR: a modulefile per install of this machine's platform for Lmod
 * (DIR/cudnn/<id>.lua) or, tcl, Environment Modules (DIR/cudnn/<id>), and DIR/cudnn/.version
 * naming the newest: each sets CUDNN_PATH, CUDNN_ROOT, CDM_ACTIVE and puts the install's
 * folders on LD_LIBRARY_PATH, CPATH and LIBRARY_PATH, and conflicts with other cudnn
 * modules. Files cdm did not write are never replaced. */
struct cdm_modulefiles_result {
    char dir[4096];      /* DIR/cudnn */
    unsigned files;      /* modulefiles for the installs */
    unsigned written;    /* of those (and .version), how many changed */
    char default_id[64]; /* what .version names; "" when there is no install */
};
int cdm_modulefiles(cdm_ctx *ctx, const char *into, bool tcl, struct cdm_modulefiles_result *out);

/* cdm lock: PROJECT/cudnn.lock names the archive of the project's cuDNN (version, CUDA
 * major, and per platform the file name, size and SHA-256): this machine's from the
 * install's record, each other platform's from the manifest at [fetch] base. check: compare
 * the project's install with the lock instead (CDM_EMISMATCH when they differ). */
struct cdm_lock_request {
    const char *project;          /* NULL: the nearest */
    const char *const *platforms; /* more platforms to lock (this one is always there) */
    size_t nplatforms;
    bool check;
};
struct cdm_lock_result {
    char project[4096];
    char path[4096];     /* the lock file */
    char install_id[64]; /* what the lock names (or the project uses) */
    size_t platforms;    /* written: how many platforms it names */
    bool changed;        /* written, or (ensure) installed */
};
int cdm_lock(cdm_ctx *ctx, const struct cdm_lock_request *req, struct cdm_lock_result *out);
/* Before a link: when the project has a cudnn.lock, the install it names must be the locked
 * bytes; one not installed yet is installed from the sources or the base with the locked
 * SHA-256 (a mismatch refused). Nothing to do for a project without a lock. */
int cdm_lock_ensure(cdm_ctx *ctx, const char *project, struct cdm_lock_result *out);

/* ---- registries ----------------------------------------------------------------------- */

struct cdm_push_request {
    const char *spec;    /* the install: a version spec or an id */
    int cuda;            /* 0: any */
    const char *target;  /* oci://REGISTRY/REPOSITORY[:TAG] (TAG: VERSION-cudaN-PLATFORM) */
    const char *archive; /* the file the install came from; NULL: looked for in [install]
                          * sources */
};
struct cdm_push_result {
    char id[64];
    char reference[512]; /* oci://REGISTRY/REPOSITORY:TAG */
    char digest[80];     /* the manifest's: REFERENCE@DIGEST names exactly this push */
    char layer[80];      /* the archive's digest, sha256:<the lock's sha256> */
    uint64_t size;       /* the archive's bytes */
    bool layer_sent;     /* false: the registry had the archive already */
};
/* Store an install's archive in a registry as cdm's artifact (one layer: the archive's
 * very bytes, checked against the install's record first; a config saying which install it
 * is), under a tag. cdm install oci://... and [fetch] sources = oci://... read it back. */
int cdm_push(cdm_ctx *ctx, const struct cdm_push_request *req, struct cdm_push_result *out);

/* ---- offline bundles ------------------------------------------------------------------ */

struct cdm_bundle_request {
    const char *project;          /* NULL: the nearest */
    const char *output;           /* the bundle file to write */
    const char *const *platforms; /* more platforms than this machine's */
    size_t nplatforms;
    /* cdm's binary for a platform other than this machine's, "windows-x86_64=PATH" (this
     * machine's is the running cdm) */
    const char *const *binaries;
    size_t nbinaries;
};
struct cdm_bundle_result {
    char path[4096];
    char install_id[64];
    size_t platforms;
    uint64_t size; /* the bundle's bytes */
};
/* One file for an offline machine: the project's cudnn.lock (and pin), every archive it
 * names for this platform and each of platforms (each checked against the lock's SHA-256:
 * from [install] sources, else downloaded from [fetch] base), cdm's binary for each, and a
 * SHA256SUMS of them all. */
int cdm_bundle(cdm_ctx *ctx, const struct cdm_bundle_request *req, struct cdm_bundle_result *out);
/* Install this machine's archive out of a bundle, offline: the archive taken out, held to
 * the bundle's lock and SHA256SUMS, and installed as cdm_install would (req's accept_license
 * and force count; its what, sha256 and platform come from the bundle). */
int cdm_install_from_bundle(cdm_ctx *ctx, const char *bundle, const struct cdm_install_request *req,
                            struct cdm_install_result *result);

#endif
