/*
 * cdm: keep several cuDNN versions side by side and give each project its own.
 *
 * This header is the core's whole API. The core never prints: every call returns a
 * status (CDM_OK or a negative CDM_E* code) and, on failure, leaves a message in the
 * context (cdm_error_message), worded for the user: the failure first, the subject
 * quoted, then what to do.
 */
#ifndef CDM_H
#define CDM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CDM_VERSION_STRING "0.1.0"

enum cdm_status {
    CDM_OK = 0,
    CDM_EINVAL = -1,        /* bad argument from the user */
    CDM_EIO = -2,           /* a file system call failed */
    CDM_ENOTFOUND = -3,     /* no such version, file, project */
    CDM_EEXISTS = -4,       /* already there and not ours to replace */
    CDM_EAMBIGUOUS = -5,    /* a version spec matches several installs */
    CDM_ECHECKSUM = -6,     /* a given checksum does not match */
    CDM_EARCHIVE = -7,      /* corrupt, truncated or hostile archive */
    CDM_EDB = -8,           /* the SQLite index failed */
    CDM_EBUSY = -9,         /* in use (a project links to it, the store is locked) */
    CDM_EUNSUPPORTED = -10, /* the platform or file system cannot do it */
    CDM_ECONFIG = -11,      /* malformed configuration file */
    CDM_ENETWORK = -12,     /* a download failed: network, server, TLS or its manifest */
    CDM_EMISMATCH = -13,    /* things that do not go together: versions attach refuses, a
                             * lock or a deploy that names something else */
};

typedef struct cdm_ctx cdm_ctx;

/* Progress of a long operation: done and total in bytes (total 0 when unknown). */
typedef void (*cdm_progress_fn)(void *arg, uint64_t done, uint64_t total);
/* A warning the front end should show (unknown config key, ...). */
typedef void (*cdm_warn_fn)(void *arg, const char *message);
/* What a long operation is doing: downloading, resuming, waiting, trying again. */
typedef void (*cdm_note_fn)(void *arg, const char *message);

struct cdm_options {
    const char *root;        /* --root, else CDM_ROOT, else [store] root, else default */
    const char *config_path; /* --config, else CDM_CONFIG, else the per-user default */
    cdm_progress_fn progress;
    cdm_warn_fn warn;
    cdm_note_fn note;
    void *callback_arg;
    bool verbose;        /* notes for each thing done too (cdm gc names what it removed) */
    const char *command; /* what this process does ("cdm install x.zip"), shown to another
                          * that waits for the store's lock; NULL: "cdm" */
};

/* Open a context: reads the configuration and settles the store root. The store itself
 * is opened lazily by the calls that need it. On failure *out still holds a context
 * whose message says why (free it with cdm_ctx_free). */
int cdm_ctx_new(cdm_ctx **out, const struct cdm_options *options);
void cdm_ctx_free(cdm_ctx *ctx);

/* Ask the running operation to stop (Ctrl-C, SIGTERM, a console control event): only sets a
 * flag, so a signal handler may call it. An install (from an archive or another store) stops
 * at its next block, removes its own staging folder and fails saying so; a download keeps
 * what came, to resume from; cdm_interrupted then says true. */
void cdm_interrupt(cdm_ctx *ctx);
bool cdm_interrupted(const cdm_ctx *ctx);

/* How a front end opens the store before a command (its command table's rows name it). Every
 * call below opens what it needs itself, and first finishes or undoes the interrupted work
 * it touches; opening first only makes the open the first thing done. */
enum cdm_store_mode {
    CDM_STORE_READ,  /* the index, for reading */
    CDM_STORE_STATE, /* and the user's state for writing, its lock held until the context is
                      * freed (link, attach: a read-only store serves them) */
    CDM_STORE_WRITE, /* the store for writing: its folders made, its lock and then the
                      * state's held until the context is freed */
};
int cdm_store_open(cdm_ctx *ctx, enum cdm_store_mode mode);

const char *cdm_error_message(const cdm_ctx *ctx);
int cdm_error_code(const cdm_ctx *ctx);

/* The settled store root (absolute) and the configured link name. */
const char *cdm_root(const cdm_ctx *ctx);
const char *cdm_link_name(const cdm_ctx *ctx); /* [link] name, default "cuda_link" */

/* ---- installs ---------------------------------------------------------------- */

/* Where an install stands. Only a writer holding the store's lock changes it; a reader
 * that resolves or lists installs and finds work interrupted by a kill finishes it first
 * when it can take the lock without waiting (else it reads the store as it is: another cdm
 * is at work, or this user may not write there), so it sees anything but OK only then, or
 * when a folder was deleted by hand. */
enum cdm_install_state {
    CDM_INSTALL_OK,         /* recorded, and its folder is in place */
    CDM_INSTALL_INSTALLING, /* an install or reinstall (--force) is under way */
    CDM_INSTALL_REMOVING,   /* a remove is under way: its folder is set aside */
    CDM_INSTALL_MISSING,    /* recorded, but its folder is gone */
};

struct cdm_install_info {
    char id[64];            /* 8.8.0.121-cuda11 */
    char version[32];       /* 8.8.0.121 */
    int cuda;               /* CUDA major of the build variant */
    char platform[32];      /* linux-x86_64, windows-x86_64, linux-sbsa, ... */
    char layout[8];         /* "A" (cuda/ top folder), "B" (8.3.1-8.4), "C" (8.5+) */
    char bin_dir[16];       /* "bin", "bin/x64" or "" when the archive has none */
    char lib_dir[32];       /* "lib", "lib/x64", "lib64", ... */
    char include_dir[48];   /* "include" or targets/.../include */
    char archive_name[256]; /* the file it came from: NVIDIA's archive, a wheel, ... */
    char source[16];        /* that file's kind: "archive", "wheel" */
    uint64_t archive_size;
    char sha256[65];
    bool official;        /* the archive's hash is a known NVIDIA release */
    int upstream;         /* 0: in this store; N: in the Nth [store] upstream (read only) */
    int64_t installed_at; /* seconds since the epoch */
    uint64_t size;        /* bytes of regular files in the store folder */
    char path[4096];      /* <root>/<id> */
    enum cdm_install_state state;
};

/* "ok", "installing", "removing", "missing". */
const char *cdm_install_state_name(enum cdm_install_state state);

struct cdm_install_request {
    const char *what;     /* an archive path, or a version spec: found in [install] sources,
                           * else downloaded from [fetch] base (see downloads below) */
    int cuda;             /* --cuda N, 0 for any */
    const char *sha256;   /* --sha256, NULL for none */
    const char *platform; /* --platform, NULL: this machine's */
    bool force;           /* replace an install of the same id made from another archive */
    int build;            /* --build N: the build number a folder does not say (0: none) */
    const char *from;     /* where a version is downloaded from: "nvidia" ([fetch] base),
                           * "pypi" ([fetch] index_url); NULL: [fetch] sources' order */
    /* The other files given with what (NULL-terminated; NULL: none): for a version that
     * comes as several packages (NVIDIA's Debian packages), the other parts of the
     * install, taken with it. */
    const char *const *together;
    /* --accept-license: NVIDIA's cuDNN licence accepted for this install, on record (also
     * [install] accept_license); [install] require_license refuses an install without it */
    bool accept_license;
};

struct cdm_install_result {
    struct cdm_install_info install;
    bool changed;         /* false: the same archive was installed already */
    bool downloaded;      /* the archive came from [fetch] base */
    bool other_source;    /* changed false: installed from another file with the same libraries */
    bool by_version;      /* changed false: a version asked for, and installed (no file read) */
    char unpacked_by[96]; /* how the archive was unpacked (threads, inflater), for --verbose */
    /* changed false: a package of a version that comes as several (NVIDIA's Debian
     * packages) kept until the one that completes the install is given; install holds
     * the id and version it is a part of, completes says what completes it */
    bool kept;
    char completes[160];
    bool took_together; /* every file of the request's together went into this install */
    /* changed: the files identical to another install's (same SHA-256, size and mode),
     * stored once, as hard links to that install's (shared_with: the first of them) */
    size_t shared_files;
    uint64_t shared_bytes;
    char shared_with[64];
    bool shared_with_others; /* some of them are other installs' than shared_with's */
};

int cdm_install(cdm_ctx *ctx, const struct cdm_install_request *req,
                struct cdm_install_result *result);
/* Copy the install req->what (and req->cuda) names in the store at from (another store, such
 * as one on a network share) into this one, hashing every file as it is copied against the
 * other store's record; req's accept_license as for cdm_install, its other fields unused.
 * changed false when the same install (same archive) is here already. */
int cdm_install_from_store(cdm_ctx *ctx, const char *from, const struct cdm_install_request *req,
                           struct cdm_install_result *result);

/* cdm scan: a copy of cuDNN found on the machine (read only). */
struct cdm_scan_copy {
    char path[4096];  /* the folder that holds its include/ (a wheel's nvidia/cudnn, a prefix) */
    char kind[16];    /* wheel, venv, conda, toolkit, system, installer, folder, user site */
    char version[32]; /* the wheel's 9.1.0.70, else the headers' 9.1.0 */
    int cuda;         /* 0 when the copy does not say */
    uint64_t size;    /* bytes of its cuDNN files */
    unsigned files;
    bool attached;    /* its files are cdm attach's links into this store */
    char same_as[64]; /* the install with the same library bytes, "" for none */
};
/* Every copy in paths (each examined, and the environments below it), or, with none given,
 * in the Python environments below the home folder, [scan] paths, the CUDA toolkits and the
 * system's folders. *out malloc'd (free), *count may be 0. */
int cdm_scan(cdm_ctx *ctx, const char *const *paths, size_t path_count, struct cdm_scan_copy **out,
             size_t *count);

/* Every install, ordered by version. *out is malloc'd (free it); *count may be 0. */
int cdm_list(cdm_ctx *ctx, struct cdm_install_info **out, size_t *count);

/* Resolve a version spec (8.8, 8.8.0, 8.8.0.121, 8.8.0.121-cuda11, latest) to one install. */
int cdm_resolve(cdm_ctx *ctx, const char *spec, int cuda, struct cdm_install_info *out);

struct cdm_remove_request {
    const char *spec;
    int cuda;
    bool force; /* unlink the projects using it first */
};
int cdm_remove(cdm_ctx *ctx, const struct cdm_remove_request *req,
               struct cdm_install_info *removed);

/* Projects whose current generation links to install_id: a NULL-terminated malloc'd array
 * of malloc'd strings (free with cdm_strv_free). */
int cdm_projects_using(cdm_ctx *ctx, const char *install_id, char ***projects);
void cdm_strv_free(char **v);

/* One project whose current generation links to an install. */
struct cdm_usage {
    char *install_id;
    char *project;
};
/* Every project's current install, in one read of the index: sorted by install id, then
 * project (free with cdm_usage_free). For listing many installs at once. */
int cdm_usage_list(cdm_ctx *ctx, struct cdm_usage **out, size_t *count);
void cdm_usage_free(struct cdm_usage *v, size_t count);

/* cdm store delete: the whole store at the root, made by cdm and owned by the user, removed
 * (its read-only folders given write bits only to delete them). Refused for a folder with
 * no index of cdm's, one holding anything cdm did not make, one keeping a deploy's or an
 * attach's files, and, unless force, one projects link into (force unlinks them first). */
struct cdm_store_delete_result {
    char root[4096];
    size_t installs; /* how many installs it held */
    size_t unlinked; /* projects unlinked first (force) */
};
int cdm_store_delete(cdm_ctx *ctx, bool force, struct cdm_store_delete_result *out);

/* Finish or undo interrupted work (.staging, unfinished link changes) and mark the records
 * of project folders that are gone; *removed counts both. Mutating commands do the first
 * on their own. */
int cdm_gc(cdm_ctx *ctx, unsigned *removed);

/* cdm gc --unused: every install of the store, kept when something of this user on this
 * machine uses it (a project's link, an attached environment, the default, a project's
 * cudnn.lock, a deploy into a CUDA toolkit) or when it is one of the keep newest of the
 * others, else removed (not with dry_run). One record per install, sorted by id. */
struct cdm_unused {
    char id[64];
    uint64_t size; /* bytes of its files */
    bool removed;  /* removed now (or, with dry_run, would be) */
    char why[512]; /* kept: what uses it */
};
struct cdm_gc_unused_request {
    unsigned keep; /* the newest unused installs kept */
    bool dry_run;
};
int cdm_gc_unused(cdm_ctx *ctx, const struct cdm_gc_unused_request *req, struct cdm_unused **out,
                  size_t *count);

/* ---- downloads ---------------------------------------------------------------------
 *
 * [fetch] base (CDM_FETCH_BASE overrides it): NVIDIA's redist folder by default, or a
 * mirror of its layout (https://, http://, file:// or a folder); "off" turns downloads
 * off. cdm_install downloads a version that no [install] sources folder holds. */

/* One archive a base publishes. */
struct cdm_offer {
    char version[32];  /* 9.27.0.48 */
    int cuda;          /* CUDA major of the build variant */
    char platform[32]; /* linux-x86_64, windows-arm64, ... */
    char name[256];    /* the archive's file name */
    uint64_t size;
    char sha256[65];
    char url[4096]; /* where it is: a URL, or a path for a local base */
    char label[32]; /* the manifest it is listed in (redistrib_<label>.json) */
};

struct cdm_available_request {
    const char *spec;     /* NULL: every version */
    int cuda;             /* 0: every variant */
    const char *platform; /* NULL: this machine's; "all": every platform */
    const char *from;     /* "pypi": NVIDIA's wheels on [fetch] index_url; NULL: [fetch] base */
};
/* What the base (or the package index) offers, oldest version first (*out malloc'd; *count may be
 * 0). A local base offers only the archives it holds. */
int cdm_available(cdm_ctx *ctx, const struct cdm_available_request *req, struct cdm_offer **out,
                  size_t *count);

struct cdm_fetch_request {
    const char *spec;
    int cuda;
    const char *platform; /* NULL: this machine's */
    const char *into;     /* the folder to download into (made when missing) */
};
struct cdm_fetch_result {
    struct cdm_offer offer;
    char path[4096];     /* the archive in the folder */
    char manifest[4096]; /* its manifest, beside it */
    bool changed;        /* false: the folder had the archive already */
};
/* Download an archive and its manifest into a folder without installing: the folder then
 * serves as an [install] sources folder (a SHA256SUMS line is added) and as a file://
 * base for offline machines. */
int cdm_fetch(cdm_ctx *ctx, const struct cdm_fetch_request *req, struct cdm_fetch_result *result);

/* Partial downloads in <root>/downloads that no cdm process is writing: fn (may be NULL)
 * is told each one, which is then deleted. */
typedef void (*cdm_partial_fn)(void *arg, const char *path, uint64_t size);
int cdm_downloads_clean(cdm_ctx *ctx, cdm_partial_fn fn, void *arg, unsigned *removed);

/* ---- projects ------------------------------------------------------------------------ */

#define CDM_PIN_FILE ".cudnn-version"
/* The licence cuDNN comes under, as cdm install --accept-license and [install]
 * accept_license record it (cdm sbom names it) */
#define CDM_LICENSE_NVIDIA_CUDNN "nvidia-cudnn"
#define CDM_LOCK_FILE            "cudnn.lock"

struct cdm_project {
    char path[4096];      /* the folder, canonical and absolute */
    char link_name[256];  /* the link's name: from the project's history, else [link] name */
    char link_path[4096]; /* <path>/<link_name> */
    bool has_link;        /* a link cdm can read is there */
    bool link_foreign;    /* something else (a real folder) sits at link_path */
    char target[4096];    /* where the link points ("" without a link) */
    char linked_id[64];   /* the install id the link points to ("" when not into the store) */
    bool has_pin;
    char pinned_id[64]; /* the install id in the pin file */
    char view[192];     /* the view the link points to (see toolkits), "" for the install */
    char no_link[512];  /* why the project has no link although its current generation names
                         * an install: no kind of link can be made in its folder (Windows: a
                         * FAT or exFAT volume, a share, no right to make symbolic links).
                         * linked_id, target and view then come from that generation, target
                         * the store's folder itself, where activation points. "" otherwise */
};

/* Read the project in folder dir (which must exist). */
int cdm_project_open(cdm_ctx *ctx, const char *dir, struct cdm_project *out);
/* The nearest project from start (NULL: the current folder) upwards: the first folder that
 * holds a link or a pin file. */
int cdm_project_find(cdm_ctx *ctx, const char *start, struct cdm_project *out);

/* This machine's platform name as archives spell it: linux-x86_64, windows-x86_64, ... */
const char *cdm_host_platform(void);

/* ---- CUDA toolkits -------------------------------------------------------------------
 *
 * cdm finds the toolkits on the machine (Windows: CUDA_PATH, CUDA_PATH_V*_* and the
 * registry keys NVIDIA's installer writes; elsewhere: CUDA_HOME, CUDA_PATH,
 * /usr/local/cuda, /usr/local/cuda-*, /opt/cuda), each version read from version.json,
 * version.txt or bin/nvcc --version. `cdm link --toolkit` records one with a project: its
 * link then leads to a view, <root>/views/<install id>+cuda<version>-<hash>, a folder of
 * links holding the toolkit's folders with the install's cuDNN files on top, so that the
 * link works as CUDA_PATH (nvcc, cudart and cuDNN all through it). Projects with the same
 * pair share a view; cdm gc removes the views no project uses. */
struct cdm_toolkit {
    char version[64];   /* "13.0.88" */
    char path[4096];    /* the folder as found */
    char real[4096];    /* the folder, links resolved: what a project records */
    char found_by[128]; /* "CUDA_HOME", "CUDA_PATH_V12_4", "registry v12.4", "/usr/local" */
    char source[32];    /* what told the version: "version.json", "version.txt", "nvcc" */
};
/* The toolkits found, each folder once (the first way it was found), in search order.
 * *out malloc'd; *count may be 0. */
int cdm_toolkits(cdm_ctx *ctx, struct cdm_toolkit **out, size_t *count);

/* ---- links and their history ----------------------------------------------------------- */

/* One change of a project's link. Numbers grow by one per project. */
struct cdm_generation {
    long long number;
    char install_id[64]; /* "" for an unlink */
    char action[16];     /* "link", "rollback", "unlink"; "gone" when cdm gc dropped the
                          * record of a project folder that no longer exists */
    char link_name[256];
    int64_t time;            /* seconds since the epoch */
    bool current;            /* the newest: what the index says the project uses */
    char toolkit[64];        /* the CUDA toolkit's version recorded with it, "" for none */
    char toolkit_path[4096]; /* its folder, links resolved */
    char view[192];          /* the view the link points to, "" for the install itself */
    char no_link[512];       /* why no link could be made for it ("" when one was) */
};

/* What a project uses, read from the file system and compared with the index. */
struct cdm_which_info {
    struct cdm_project project;           /* path is the recorded one when the folder is gone */
    bool gone;                            /* the folder no longer exists; its history remains */
    char version[32];                     /* of linked_id ("" without one) */
    bool installed;                       /* linked_id is an install of this store */
    enum cdm_install_state install_state; /* where it stands, when installed */
    long long generation;                 /* the current generation, 0 when there is none */
    char index_id[64];                    /* the install id the current generation names */
    bool drift;                           /* the link on disk and the index disagree */
    char toolkit[64];                     /* the current generation's toolkit, "" for none */
    char toolkit_path[4096];
};

struct cdm_link_request {
    const char *project; /* an existing folder; NULL: the nearest project (cdm_project_find) */
    const char *spec;    /* a version spec; NULL: the project's pin file */
    int cuda;            /* --cuda N, 0 for any */
    const char *name;    /* the link's name; NULL: the project's current one or [link] name */
    bool pin_exact;      /* write the install's full id to the pin even when the pin's own
                          * text ("8.8") names it already */
    const char *toolkit; /* a CUDA toolkit (version such as 13.0, or folder) the project is to
                          * use, through a view; "none" drops it; NULL keeps the project's */
    bool force;          /* link a pair outside the compatibility tables, or a version an
                          * attached Python environment's framework refuses (with a warning) */
    bool dry_run;        /* say what would change (result), change nothing */
    bool also;           /* the version goes beside the project's install, as its second
                          * cuDNN major (one link to a pair view holding both) */
    bool only;           /* the version alone: a second major the project held is dropped */
};

/* The second install of a pair view (a project holding two cuDNN majors: cdm link --also),
 * from the view's name (a generation's or a project's view) into also; false, with also
 * "", for any other view or none. */
bool cdm_pair_view_also(const char *view, char *also, size_t size);

struct cdm_link_result {
    struct cdm_which_info now; /* the project after the change */
    char previous_id[64];      /* what the link pointed to before ("" for none) */
    bool changed;              /* false: it was so already, nothing was recorded */
    bool dry_run;              /* nothing was changed: now is the project as it is, with the
                                * install it would link in now.project.linked_id */
    bool unignored;            /* the link was created in a git work tree whose ignore files
                                * do not ignore it (gitignore.h: core.excludesFile unread) */
};

/* Create or switch a project's link and write its pin file; records a generation. The pin
 * keeps its text while it names the linked install ("8.8" for 8.8.0.121-cuda11); else it
 * gets the install's full id. unlink and rollback take a NULL project as link does. */
int cdm_link(cdm_ctx *ctx, const struct cdm_link_request *req, struct cdm_link_result *result);
/* Remove a project's link (never its target) and record it; forget also removes the pin;
 * dry_run says whether it would change anything, and changes nothing. */
int cdm_unlink(cdm_ctx *ctx, const char *project, bool forget, bool dry_run,
               struct cdm_link_result *result);
/* Go back to the install of generation `to` (0: the one before the current); recorded as a
 * new generation, so rolling back twice returns. Link and rollback refuse an install that a
 * Python environment attached to the project would not accept (its framework's rule, or a
 * library it links that the install lacks), unless force. */
int cdm_rollback(cdm_ctx *ctx, const char *project, long long to, bool force,
                 struct cdm_link_result *result);
/* The project in folder project (NULL: the nearest one), or the record of a folder gone. */
int cdm_which(cdm_ctx *ctx, const char *project, struct cdm_which_info *out);
/* A project's generations, oldest first (*out malloc'd); path (4096 bytes) gets the
 * project's recorded path. A folder that is gone still has its history. */
int cdm_history(cdm_ctx *ctx, const char *project, char *path, struct cdm_generation **out,
                size_t *count);
/* True when a recorded project's folder no longer exists. */
bool cdm_project_gone(const char *project);
/* cdm_project_gone of n projects at once, into gone[i]: each folder holding several of them
 * is read once (cdm list with 10,000 projects). */
void cdm_projects_gone(const char *const *projects, size_t n, bool *gone);

/* ---- activation, and the project's cuDNN beyond the shell -------------------------- */

#include "cdm_activation.h"
#include "cdm_programs.h"

/* ---- deploying into a CUDA toolkit ---------------------------------------------------
 *
 * cdm deploy copies an install's files over a CUDA toolkit's (include/, the toolkit's
 * lib64, lib/x64 or lib, its bin or bin/x64), as the manual recipe merges them, but with a
 * record: every file it replaces is kept in the store by content (<root>/.deployed), each
 * file it places is listed in the index with what was there before, all of it before the
 * first file is touched, and cdm deploy --undo puts the toolkit back byte for byte
 * (removing the files that were not there). A deploy cut short by a kill is undone by the
 * next cdm that opens the store. */
struct cdm_deploy_request {
    const char *spec; /* the version to deploy */
    int cuda;
    const char *into; /* the toolkit's folder */
    bool force;       /* deploy a pair outside the compatibility tables (with a warning) */
};
struct cdm_deploy_result {
    char install_id[64];
    char toolkit[4096];       /* canonical */
    char toolkit_version[64]; /* "13.0.88" */
    size_t files;             /* placed (or, for --undo, put back) */
    size_t replaced;          /* of those, files the toolkit had, now kept in the store */
    bool changed;             /* false: this install was deployed there already */
};
int cdm_deploy(cdm_ctx *ctx, const struct cdm_deploy_request *req, struct cdm_deploy_result *out);
/* Put the toolkit back as it was before the deploy into it. A deployed file changed since
 * (by the user, another installer) is not overwritten without a copy: the undo is refused,
 * naming it, unless force. */
int cdm_deploy_undo(cdm_ctx *ctx, const char *toolkit, bool force, struct cdm_deploy_result *out);

/* ---- the default version ------------------------------------------------------------
 *
 * A user's default is the install activation uses outside any project (`cdm activate`
 * with no project found, and the prompt hooks). It is the user's choice, not the store's:
 * kept beside the user's state database (in CDM_STATE's folder, else
 * ${XDG_DATA_HOME:-~/.local/share}/cdm, %LOCALAPPDATA%\cdm on Windows) as the store root
 * and install id, so a store shared read-only serves each user's own default. Persisting writes it
 * into the environment of new sessions: HKCU\Environment on Windows (CUDA_PATH, CUDNN_PATH, the
 * install's bin first on PATH), a file in ~/.config/environment.d plus a block in ~/.profile
 * elsewhere (CUDA_PATH, CUDNN_PATH, LD_LIBRARY_PATH); what was there before is recorded beside the
 * default, and unpersisting puts back exactly that. */
struct cdm_default_request {
    const char *spec; /* set the default to this version; NULL: keep it */
    int cuda;
    bool unset;     /* forget the default (and unpersist it) */
    bool persist;   /* write it into the environment of new sessions */
    bool unpersist; /* take it out again */
    bool dry_run;   /* work out the answer, change nothing */
};
struct cdm_default_result {
    char id[64];             /* the default after the call, "" for none */
    char previous_id[64];    /* before it */
    char path[4096];         /* the install's folder */
    char root[4096];         /* the store it is in */
    char state[4096];        /* the file that keeps it */
    bool persisted;          /* new sessions get it (after the call) */
    char persisted_in[8192]; /* where: files, or "HKCU\Environment" ("" when not persisted) */
    bool persist_changed;    /* new sessions' environment was (would be) changed */
    bool changed;            /* something was (or, with dry_run, would be) changed */
};
/* Show (an empty request), set, unset, persist or unpersist the default. */
int cdm_default(cdm_ctx *ctx, const struct cdm_default_request *req,
                struct cdm_default_result *out);

/* ---- Python environments ------------------------------------------------------------- */

/* cdm attach: each cuDNN library in a Python environment's wheel folder
 * (site-packages/nvidia/cudnn/lib; nvidia\cudnn\bin on Windows) is replaced by its own link
 * to the file of the same name in <project>/<link>/<lib_dir> (a symbolic link; on Windows a
 * hard link, else a file symbolic link), so the frameworks' own search path (torch's RPATH
 * $ORIGIN/../../nvidia/cudnn/lib) leads to the project's cuDNN, and every later link or
 * rollback of the project applies to the environment too. The folder itself stays the
 * environment's, so pip and uv replace cdm's links, never the store's files. The wheel's
 * files are kept beside the user's state (.attached/N beside state.db, or beside the wheel's
 * folder when that is another file system) and recorded; cdm detach puts them back. */
struct cdm_attach_request {
    const char *venv;    /* the environment's folder (pyvenv.cfg, lib/python3.X/site-packages) */
    const char *project; /* NULL: the nearest project from the current folder */
    bool force;          /* attach even a cuDNN the environment's framework would refuse */
};

struct cdm_attach_result {
    char venv[4096];       /* the environment, canonical */
    char folder[4096];     /* the wheel's library folder (now the link, or restored) */
    char target[4096];     /* where the link points */
    char original[4096];   /* the folder keeping the wheel's own files while attached */
    char project[4096];    /* the project the environment follows */
    char install_id[64];   /* the install the project links to */
    char wheel[200];       /* "nvidia_cudnn_cu13 9.19.0.56", "" when no dist-info says */
    char framework[200];   /* "torch 2.11.0", "" when no framework pins the wheel */
    char requirement[256]; /* the framework's Requires-Dist on the wheel */
    char overridden[512];  /* why the attach would have been refused, had --force not been given */
    char drift[512];       /* what pip or uv changed since an earlier attach ("" when nothing):
                              that record was settled first */
    char hook[4096];       /* Windows: the DLL folders hook written into the environment (its
                            * .pth file), "" when none */
    char hook_blocked[4096]; /* an embedded Python's ._pth file that keeps site, and so the
                              * hook, from running ("" when none does) */
    unsigned more;           /* Windows: the environment's other folders attached (or detached)
                              * with it: other frameworks' copies, the wheel's */
    char more_folders[4096]; /* attach: those folders, quoted, ", " between them */
    unsigned files;          /* the cuDNN files linked */
    unsigned restored;       /* detach: the wheel's files put back */
    unsigned dropped;        /* detach: kept files dropped, the environment having its own */
    bool changed;            /* false: it was so already */
};

/* Attach the environment to the project. Refused, unless force, when the project's cuDNN has
 * another major, an older minor or another CUDA major than the environment's framework was
 * built with (PyTorch refuses the first two at run time). */
int cdm_attach(cdm_ctx *ctx, const struct cdm_attach_request *req, struct cdm_attach_result *out);
/* Put the wheel's own folder back (changed false when the environment was not attached). */
int cdm_detach(cdm_ctx *ctx, const char *venv, struct cdm_attach_result *out);

/* verify and doctor: the checks of a store and of what a program loads. */
#include "cdm_checks.h"

/* choosing the version that works on this machine. */
#include "cdm_choose.h"

#endif
