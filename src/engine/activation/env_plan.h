/*
 * Activation as changes to the environment (cdm.h says what activation does and which
 * variables carry its state): the plans of env_plan.c are pure functions of an
 * environment, read through a callback, and of a system's facts (platform/shell_host.h),
 * so the unit tests can play any sequence of activate and deactivate, for either system.
 * The cdm_* functions of cdm.h apply them to this process's environment and this system
 * (activation_host.c); shell.h renders a plan as a shell's text.
 */
#ifndef CDM_ENV_PLAN_H
#define CDM_ENV_PLAN_H

#include "cdm.h"
#include "base/util.h"
#include "platform/shell_host.h"

#include <stdbool.h>
#include <stddef.h>

typedef const char *(*env_get_fn)(void *arg, const char *name);

/* The process's environment for an env_get_fn, in UTF-8 on every platform (the C
 * library's getenv answers in the ANSI code page on Windows, which would mix two encodings
 * in one activation and lose what that code page cannot hold). Pass the snapshot as arg;
 * the values it returned stay valid until env_snapshot_free. */
struct env_snapshot {
    char **values;
    size_t n;
};
const char *env_snapshot_get(void *snapshot, const char *name);
void env_snapshot_free(struct env_snapshot *s);

/* What to activate: the link and the install's folder, relative to the link. */
struct activation_target {
    const char *id;
    const char *project;
    const char *link_path;
    const char *lib_dir; /* "lib", "lib64", "bin", "bin/x64" */
    /* the link leads to a view with a CUDA toolkit: CUDA_HOME is set too, and where the
     * loader's list is not PATH, bin_dir goes first on PATH (nvcc) */
    bool toolkit;
    const char *bin_dir;
    /* what CUDA_PATH and CUDA_HOME name, and its folder of programs: link_path and bin_dir,
     * or a toolkit (a view of one) kept apart from the link */
    const char *cuda_path, *cuda_bin;
    /* the install's library folder ("lib", "lib64", "lib/x64"), where linkers look */
    const char *lib_folder;
    /* CMAKE_PREFIX_PATH, CPATH and LIBRARY_PATH get the link, its include and lib folders */
    bool build_paths;
    /* the audit library put last on LD_AUDIT, CDM_REDIRECT_DIR then the lib folder (the
     * redirect of cdm exec); NULL: neither */
    const char *audit;
};

/* The changes that activate target over the environment get() describes: remembers the
 * values replaced unless an activation is already on, and never repeats a path entry.
 * False, with an empty plan, when the path entry holds the platform's list separator (a
 * project folder named with ';' on Windows): no path list can carry it, the loader would
 * split it in two. */
bool activation_plan(const struct shell_platform *pf, env_get_fn get, void *arg,
                     const struct activation_target *t, struct cdm_env_plan *out);
/* Whether get() shows t active as activation_plan leaves it, with the redirect's variables
 * exactly when redirect: nothing to change then. */
bool activation_current(const struct shell_platform *pf, env_get_fn get, void *arg,
                        const struct activation_target *t, bool redirect);
/* The target a describes on pf, without a redirect (audit NULL). */
void activation_target_of(const struct shell_platform *pf, const struct cdm_activation *a,
                          struct activation_target *t);
/* The changes that undo activation; an empty plan when none is on. */
void deactivation_plan(const struct shell_platform *pf, env_get_fn get, void *arg,
                       struct cdm_env_plan *out);
/* The path entry activation adds for target (malloc'd). */
char *activation_entry(const struct shell_platform *pf, const struct activation_target *t);
/* Whether get() shows an activation that cdm can undo. */
bool activation_is_on(const struct shell_platform *pf, env_get_fn get, void *arg);

/* The value change leaves, its path list joined with pf's separator (malloc'd); NULL when
 * it unsets the variable. */
char *env_change_value(const struct shell_platform *pf, const struct cdm_env_change *change);

#endif
