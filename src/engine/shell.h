/*
 * Shell syntax for activation. One table row per shell says how to quote a value, set a
 * variable, unset one and join a path list; everything here is a pure function that returns
 * text, so each shell's output can be compared with golden files.
 *
 * Activation state lives in the environment the shell exports, so any later cdm process
 * (deactivate, the prompt hook, a child shell) can read it:
 *   CDM_ACTIVE            the install id
 *   CDM_PROJECT           the project folder
 *   CDM_PATH_ENTRY        the folder activation put first on the path list
 *   CDM_SAVED_<NAME>      for CUDA_PATH, CUDNN_PATH and the path list: "set:<value>" or
 *                         "unset", taken once, before the first activation changed it
 * A marker inside the value (rather than an empty or absent variable) keeps "unset" and
 * "empty" apart in every shell, including cmd and Windows PowerShell 5.1, which cannot hold
 * an empty variable.
 */
#ifndef CDM_SHELL_H
#define CDM_SHELL_H

#include "base/util.h"

#include <stdbool.h>
#include <stddef.h>

struct shell;

/* A shell by name: pwsh powershell cmd bash zsh fish sh. Program names (dash, ksh, pwsh.exe,
 * CMD.EXE, /bin/bash) are taken as the shell whose syntax they read. NULL when unknown. */
const struct shell *shell_find(const char *name);
const char *shell_name(const struct shell *sh);
/* The names shell_find accepts as --shell values, space separated. */
const char *shell_names(void);

/* How the host names things: the path list that activation extends and its separators. */
struct shell_platform {
    const char *path_var;       /* LD_LIBRARY_PATH, or PATH on Windows */
    const char *saved_path_var; /* where activation keeps path_var's old value */
    char list_sep;              /* ':' or ';' */
    char dir_sep;               /* '/' or '\\' */
    bool fold_case;             /* path entries compare case-insensitively (Windows) */
    bool use_bin_dir;           /* the path list takes the install's bin folder, not lib */
};
extern const struct shell_platform shell_platform_posix;
extern const struct shell_platform shell_platform_windows;
/* shell_posix.c / shell_win32.c */
const struct shell_platform *shell_host_platform(void);
/* The shell that started this process where the platform can tell (Windows: the parent
 * process's program name); NULL elsewhere. */
const char *shell_parent_name(void);

/* One change to the environment. */
struct env_change {
    const char *name;
    char *value; /* NULL: unset */
    char *first; /* non-NULL: a path list, first then value (nothing more when value is "") */
};
struct env_plan {
    struct env_change v[16];
    size_t n;
};
void env_plan_free(struct env_plan *plan);

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
};

/* The changes that activate target over the environment get() describes: remembers the
 * values replaced unless an activation is already on, and never repeats a path entry.
 * False, with an empty plan, when the path entry holds the platform's list separator (a
 * project folder named with ';' on Windows): no path list can carry it, the loader would
 * split it in two. */
bool activation_plan(const struct shell_platform *pf, env_get_fn get, void *arg,
                     const struct activation_target *t, struct env_plan *out);
/* The changes that undo activation; an empty plan when none is on. */
void deactivation_plan(const struct shell_platform *pf, env_get_fn get, void *arg,
                       struct env_plan *out);
/* The path entry activation adds for target (malloc'd). */
char *activation_entry(const struct shell_platform *pf, const struct activation_target *t);
/* Whether get() shows an activation that cdm can undo. */
bool activation_is_on(const struct shell_platform *pf, env_get_fn get, void *arg);

/* Text for the shell, one line per change. Returns the name of the first variable whose
 * value the shell cannot express (cmd: a quote or a line break), NULL when all went well. */
const char *shell_render(const struct shell *sh, const struct shell_platform *pf,
                         const struct env_plan *plan, struct strbuf *out);

/* Single items, for tests and the hook snippets. */
void shell_quote(const struct shell *sh, struct strbuf *out, const char *value);

#endif
