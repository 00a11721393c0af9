/* The configuration file (INI, inifile.h): what it may set, and reading it. */
#ifndef CDM_CONFIG_H
#define CDM_CONFIG_H

#include "base/error.h"

#define CONFIG_MAX_SOURCES 8

struct cdm_config {
    char *path;       /* the file read, NULL when none */
    char *root;       /* [store] root */
    char **upstreams; /* [store] upstream: read-only stores below this one, in order */
    size_t upstream_count;
    bool shared_read_only; /* [store] shared = read-only: nobody writes the store while cdm runs */
    enum config_journal {
        JOURNAL_AUTO,     /* write-ahead log, but a rollback journal on a network file system */
        JOURNAL_WAL,      /* write-ahead log everywhere */
        JOURNAL_ROLLBACK, /* rollback journal everywhere */
    } journal;      /* [store] journal: how SQLite keeps the index's and the state's commits */
    char **sources; /* [install] sources, NULL-terminated */
    size_t source_count;
    char **scan_paths; /* [scan] paths: more folders cdm scan looks in, NULL-terminated */
    size_t scan_path_count;
    char *link_name;                   /* [link] name */
    unsigned long long max_total_size; /* [install] max_size, bytes */
    unsigned long long max_entries;    /* [install] max_entries */
    unsigned threads;                  /* [install] threads: 0, every core this process may use */
    unsigned long long thread_memory;  /* [install] thread_memory: the threaded decoders' bound */
    bool accept_license;  /* [install] accept_license = nvidia-cudnn: accepted for every install */
    bool require_license; /* [install] require_license: no install without it accepted */
    char *fetch_base;     /* [fetch] base; NULL: NVIDIA's redist folder */
    char *index_url;      /* [fetch] index_url: a Python package index; NULL: PIP_INDEX_URL, PyPI */
    /* [fetch] sources: where a version is downloaded from, in order (nvidia: [fetch] base;
     * pypi: NVIDIA's wheels from [fetch] index_url; oci://REGISTRY/REPO: a registry's
     * repository, its reference in fetch_oci at the same index) */
    enum fetch_source { FETCH_NVIDIA, FETCH_PYPI, FETCH_OCI } fetch_sources[CONFIG_MAX_SOURCES];
    char *fetch_oci[CONFIG_MAX_SOURCES];
    unsigned fetch_source_count;
    char **insecure_registries; /* [fetch] insecure_registries: HOST[:PORT] spoken to in plain
                                 * HTTP (loopback always is) */
    size_t insecure_registry_count;
    char *ca_file;            /* [fetch] ca_file */
    char *legacy_sums;        /* [fetch] legacy_sums: hashes of archives older than the manifests */
    unsigned fetch_timeout;   /* [fetch] timeout, seconds */
    unsigned fetch_low_speed; /* [fetch] low_speed, bytes a second (0: none) */
    unsigned fetch_low_speed_time;    /* [fetch] low_speed_time, seconds */
    unsigned fetch_max_time;          /* [fetch] max_time, seconds (0: none) */
    unsigned fetch_retries;           /* [fetch] retries */
    unsigned fetch_retry_wait;        /* [fetch] retry_wait, seconds (doubles each time) */
    bool activate_build_paths;        /* [activate] build_paths: CMAKE_PREFIX_PATH, CPATH,
                                       * LIBRARY_PATH too */
    bool activate_redirect;           /* [activate] redirect: LD_AUDIT with cdm-audit.so */
    bool activate_named_toolkit_only; /* [activate] find_toolkit = false: a toolkit kept in
                                       * CUDA_PATH only when CUDA_PATH or CUDA_HOME name it,
                                       * none looked for (toolkit_kept.c) */
    unsigned windows_retry_seconds;   /* [windows] retry_seconds: how long a rename or delete
                                       * waits for a scanner to close the file (0: none) */
};

/* Fill config from the file at explicit_path (which must exist), or from the per-user
 * default file when explicit_path is NULL (which may be absent). ctx only carries the
 * error and the warnings (unknown keys). */
int config_load(cdm_ctx *ctx, struct cdm_config *config, const char *explicit_path);
void config_free(struct cdm_config *config);

/* How many threads an install or a verify may use: [install] threads, else one per core this
 * process may use. */
unsigned config_threads(const struct cdm_config *config);

/* Why name cannot name a project's link, on any platform (a store may be shared with
 * Windows): a path, '.', '..', the pin file, a Windows device name (CON, NUL.txt, COM1...),
 * a character Windows refuses, a trailing dot or space. NULL when it can. */
const char *config_link_name_problem(const char *name);

#endif
