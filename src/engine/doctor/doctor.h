/*
 * What the doctor's layers share. cdm_doctor (doctor.c) runs the layers in the order of
 * its table; each layer is a file of checks (doctor_store.c, doctor_library.c,
 * doctor_deps.c, doctor_shadow.c, doctor_driver.c, doctor_host.c, doctor_same.c,
 * doctor_python.c, doctor_run.c) that appends results with doctor_add (doctor_report.c)
 * and never prints. Later layers read what earlier ones found in struct doctor. Layers
 * call doctor_report.c and doctor_env.c, never doctor.c or each other: doctor.c calls
 * them through its table, so a call back would be a cycle (tests/arch_check.py).
 *
 * A new layer is a file that defines a struct doctor_layer (its checks in order) and a
 * row in doctor.c's table; what it learns for later layers goes into struct doctor. It
 * asks the platform for facts (platform/loader.h: search orders, imports, the driver, the
 * host) and decides here, so the platform never needs to know about checks.
 */
#ifndef CDM_DOCTOR_H
#define CDM_DOCTOR_H

#include "internal.h"
#include "platform/loader.h"
#include "platform/probe.h"
#include "platform/trace.h"
#include "toolkit.h"

struct doctor {
    cdm_ctx *ctx;
    struct cdm_doctor_report *report;
    bool store_exists;
    bool have_project;
    struct cdm_project project;
    bool have_install;
    struct cdm_install_info install;
    int major, minor, patch;  /* the install's version */
    bool native;              /* the install is for this machine's platform */
    bool windows;             /* the install is a Windows one (DLLs in bin, PATH) */
    char *lib_dir;            /* where its libraries are: lib (POSIX) or bin (Windows) */
    char *main_lib;           /* libcudnn.so.<major> / cudnn64_<major>.dll in lib_dir */
    char **libs;              /* the install's cuDNN library names, NULL-terminated */
    struct cudnn_probe probe; /* what main_lib answered the library layer (probed: asked) */
    bool probed;
    long cudart; /* cudnnGetCudartVersion(), 0 when unknown */
    bool driver_probed;
    struct driver_info driver;
    bool have_toolkit;
    struct toolkit_info toolkit;
    bool host_probed;
    struct host_facts host;
    const struct cdm_doctor_request *req; /* the command to run, for cdm doctor -- CMD */
    struct doctor_env *env;               /* doctor_env(): what a program here runs with */
};

/* The environment a program of the examined project runs in: what `cdm activate` would
 * set over this process's environment (doctor_env.c). Without a project that can be
 * activated, this process's environment as it is. */
struct doctor_env {
    bool activated;
    bool redirect;          /* [activate] redirect: activation redirects cuDNN loads too */
    char activation[4096];  /* the link activation points at, or why there is none */
    struct trace_env *vars; /* the changes activation makes (value NULL: unset) */
    size_t count;
    char *path_list; /* LD_LIBRARY_PATH (PATH on Windows) as the program sees it */
    const char *path_var;
};
/* Computed once per run, freed with the doctor. */
const struct doctor_env *doctor_env(struct doctor *d);
void doctor_env_free(struct doctor_env *env);

/* One layer: its checks, run in this order. */
typedef void (*doctor_check_fn)(struct doctor *d);
struct doctor_layer {
    const char *name;
    const doctor_check_fn *checks;
    size_t count;
};
extern const struct doctor_layer doctor_store_layer;   /* the index, leftovers, the project */
extern const struct doctor_layer doctor_library_layer; /* load, version, cudart, handle */
extern const struct doctor_layer doctor_deps_layer;    /* imports and run-time loads */
extern const struct doctor_layer doctor_shadow_layer;  /* other copies found first */
extern const struct doctor_layer doctor_driver_layer;  /* driver, toolkit, their tables */
extern const struct doctor_layer doctor_machine_layer; /* GPUs, and the choice here */
extern const struct doctor_layer doctor_host_layer;    /* the host's own (Windows) checks */
extern const struct doctor_layer doctor_same_layer;    /* every cuDNN library from the install */
extern const struct doctor_layer doctor_python_layer;  /* the cuDNN Python environments load */
extern const struct doctor_layer doctor_run_layer;     /* what a real program loaded */

/* Append a check result; detail and fix are printf formats (fix may be NULL). */
void doctor_add(struct doctor *d, const char *name, enum cdm_check_status status, const char *fix,
                const char *detail_fmt, ...) CDM_PRINTF(5, 6);

/* True when id is installed and complete; its record goes to out (may be NULL). */
bool doctor_installed(struct doctor *d, const char *id, struct cdm_install_info *out);
/* True when there is an install of this platform to examine; else adds a skip named name
 * saying why not. */
bool doctor_need_install(struct doctor *d, const char *name);
/* The NVIDIA driver's facts, asked of the loader once per run. */
const struct driver_info *doctor_driver(struct doctor *d);

#endif
