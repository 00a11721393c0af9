/*
 * Activation: what a shell's environment becomes for a project's cuDNN (plans, the prompt
 * hooks' state, rendering for each shell). Part of the core's API in cdm.h, which includes
 * it; kept apart only so that each header reads in one sitting.
 */
#ifndef CDM_ACTIVATION_H
#define CDM_ACTIVATION_H

#include "cdm.h" /* its types; cdm.h includes this file in turn, past them */

/* ---- activation ------------------------------------------------------------------------ */

/*
 * Activation points a shell at a project's cuDNN. It is computed as a plan, a list of
 * changes to environment variables worked out from this process's environment, which the
 * front end renders for one shell (cdm_shell_render) for that shell to evaluate:
 *   bash/zsh/sh:  eval "$(cdm activate)"
 *   fish:         cdm activate --shell fish | source
 *   PowerShell:   cdm activate --shell pwsh | Out-String | Invoke-Expression
 *   cmd:          for /f "delims=" %i in ('cdm activate --shell cmd') do @%i
 * Activating sets
 *   CUDA_PATH, CUDNN_PATH  to the project's link (it has the CUDA layout);
 *   CUDNN_ROOT, CUDNN_ROOT_DIR  the same, for the FindCUDNN.cmake modules of C/C++ builds;
 *   the loader's path list LD_LIBRARY_PATH (on Windows PATH), with the install's lib
 *                          folder (on Windows its bin folder) through the link first;
 *   with [activate] build_paths, CMAKE_PREFIX_PATH (the link), CPATH (its include folder)
 *                          and LIBRARY_PATH (its lib folder), each first in its list;
 *   with [activate] redirect or --redirect (Linux), LD_AUDIT with cdm-audit.so last and
 *                          CDM_REDIRECT_DIR, as cdm exec does (below);
 * and keeps its own state in the environment the shell exports, so any later cdm process
 * (deactivate, the prompt hook, a child shell) can read it:
 *   CDM_ACTIVE            the install id
 *   CDM_PROJECT           the project folder
 *   CDM_PATH_ENTRY        the folder activation put first on the path list
 *   CDM_SAVED_<NAME>      for each variable above: "set:<value>" or "unset", taken once,
 *                         before the first activation changed it;
 *   CDM_<NAME>_ENTRY      for CMAKE_PREFIX_PATH, CPATH, LIBRARY_PATH and LD_AUDIT: the
 *                         entry activation put in the list.
 * A marker inside the value (rather than an empty or absent variable) keeps "unset" and
 * "empty" apart in every shell, including cmd and Windows PowerShell 5.1, which cannot
 * hold an empty variable. Activating again, or another project, keeps the saved values and
 * replaces the old entry, so the path list never holds one twice. Deactivating restores
 * the saved values exactly: an unset variable comes back unset, a path list nobody touched
 * comes back byte for byte, and one the user changed since keeps the user's changes and
 * loses only activation's entry.
 */

/* What `cdm activate` points a shell at: the project's link and the linked install's
 * folders. Reads the index and stats the install's folder (no store scan; recovery only
 * when the install is not in place), so a prompt hook can call it. */
struct cdm_activation {
    char project[4096];   /* the project folder */
    char link_path[4096]; /* <project>/<link name>: paths go through it, so a later
                             link or rollback takes effect without activating again */
    char id[64];          /* the linked install */
    char bin_dir[16];     /* the install's folders, relative to the link, '/' separated */
    char lib_dir[32];
    char toolkit[64]; /* the CUDA toolkit's version when the link leads to a view ("" for
                       * none): the folders above are then the view's; or the version of
                       * the toolkit cuda_path holds */
    /* What CUDA_PATH and CUDA_HOME name when not link_path ("" for link_path): with no
     * toolkit recorded with the link, a view of a toolkit the user's environment named or
     * cdm found here, with the install on top; or, where none could be made, the toolkit
     * the user named, kept as it was. Activation never hides a toolkit. */
    char cuda_path[4096];
    char cuda_bin[16]; /* cuda_path's folder of programs, relative ("bin", "bin/x64") */
    char target[4096]; /* where link_path led when it was read (absolute); for the default,
                        * the install's folder */
    bool build_paths;  /* [activate] build_paths: CMAKE_PREFIX_PATH, CPATH, LIBRARY_PATH */
    /* Every cuDNN library its programs load taken from the install (LD_AUDIT, Linux only):
     * from [activate] redirect (wanted: where it cannot be, a warning and no redirect), or
     * asked for (--redirect: where it cannot be, an error). */
    enum cdm_redirect { CDM_REDIRECT_NO, CDM_REDIRECT_WANTED, CDM_REDIRECT_ASKED } redirect;
};
/* The project in dir (search: the nearest one from dir upwards; dir NULL: the current
 * folder). Fails, saying which `cdm link` to run, when the project has no usable link.
 * Searching, with no project found, gives the user's default (cdm_default) if there is
 * one: project is then the user's state folder and link_path the install's folder. */
int cdm_activation_find(cdm_ctx *ctx, const char *dir, bool search, struct cdm_activation *out);

/* One change of an environment variable. */
struct cdm_env_change {
    const char *name;
    char *value; /* the new value; NULL: unset the variable */
    char *first; /* a path list: the entry put first, then value, the rest of the list
                  * (nothing more when value is ""); NULL for a plain variable */
};
struct cdm_env_plan {
    struct cdm_env_change v[48];
    size_t n; /* 0: nothing to change */
};
void cdm_env_plan_free(struct cdm_env_plan *plan);
/* The value a change leaves, a path list joined with this system's separator (malloc'd);
 * NULL when the change unsets the variable. */
char *cdm_env_change_value(const struct cdm_env_change *change);

/* The plan that activates a (see cdm_activation_find) over this process's environment.
 * Fails (CDM_EUNSUPPORTED) when the folder to put on the path list holds the list's
 * separator (a project folder named with ';' on Windows, ':' elsewhere): the loader would
 * split it in two; and when a->redirect is CDM_REDIRECT_ASKED where it cannot be done
 * (Windows, whose loader has no audit interface; no cdm-audit.so found). */
int cdm_activation_plan(cdm_ctx *ctx, const struct cdm_activation *a, struct cdm_env_plan *out);
/* Whether this process's environment has a active already (the same install through the
 * same path entry): a prompt hook then has nothing to change. */
bool cdm_activation_is_current(const struct cdm_activation *a);
/* The plan that undoes activation; empty when none is on. Needs no context: deactivating
 * works without a store or a readable configuration. */
void cdm_deactivation_plan(struct cdm_env_plan *out);

/* What a prompt hook (cdm hook) compares before each prompt to know, without starting a
 * process, that `cdm activate --auto` would change nothing: the folders from dir upwards
 * (their links and pin files), the link the activation goes through, the default's file and
 * the configuration file. Read before the decision, so that a change made while cdm decides
 * shows as a difference at the next prompt, never as a state that matches a stale decision.
 * Opens no index. */
struct cdm_hook_state {
    char dir[4096];          /* where the project search starts, links resolved */
    char link_name[256];     /* the name of a link that makes a folder a project */
    char link[4096];         /* the link the activation goes through, else the nearest
                                project's ("" when there is none) */
    char target[4096];       /* where that link led, absolute ("" when it is no link) */
    char default_file[4096]; /* the user's default (cdm default), there or not */
    char config[4096];       /* the configuration file, there or not ("" for /dev/null) */
};

/* The parts of the hook's state that do not depend on the folder (the link's name, the
 * default's file, the configuration file; the rest zero): `cdm hook` prints them with its
 * snippet, so that the first prompt's decision is kept and the second prompt starts no cdm. */
void cdm_hook_state_files(cdm_ctx *ctx, struct cdm_hook_state *out);

/*
 * `cdm activate --auto`, for the prompt hooks, decided in one call that walks up from dir
 * (NULL: the current folder) once: in the project already active (same install, same path
 * entry, its link unchanged) nothing (unchanged, and no index opened: the hooks ask at every
 * prompt, so that a link, rollback or unlink shows at the next one); in another project, or
 * after its link changed, the plan that activates it; outside projects the user's default
 * (cdm default), or a plan that deactivates without one. A project or default that cannot be
 * activated fails (the message in the context) with a plan that deactivates all the same,
 * since the old cuDNN no longer belongs here. With hook_state, the state the hook compares
 * before the next prompt, read before deciding.
 */
struct cdm_auto_activation {
    bool unchanged;           /* nothing to change: plan empty */
    struct cdm_env_plan plan; /* to render (cdm_env_plan_free); n 0: nothing to print */
    bool said_always;         /* the failure is this environment's plan, not the project's
                               * state: said even where the hooks ask --quiet (they do when
                               * the folder did not change, so the project's is said once) */
    bool has_state;           /* hook_state asked, and dir is a folder */
    struct cdm_hook_state state;
};
int cdm_activation_auto(cdm_ctx *ctx, const char *dir, bool hook_state,
                        struct cdm_auto_activation *out);

/* A shell that plans are rendered for: pwsh powershell cmd bash zsh fish sh. */
typedef struct cdm_shell cdm_shell;
/* A shell by name. Program names (dash, ksh, pwsh.exe, CMD.EXE, /bin/bash, a login shell's
 * -zsh) are taken as the shell whose syntax they read. NULL when unknown. */
const cdm_shell *cdm_shell_find(const char *name);
/* The i'th shell cdm writes for, from 0; NULL past the last. */
const cdm_shell *cdm_shell_at(size_t i);
const char *cdm_shell_name(const cdm_shell *sh);
/* The shell that started this process, where the system can tell (Windows, whose shells
 * set no $SHELL: the parent process); NULL elsewhere or when it is no shell cdm knows. */
const cdm_shell *cdm_shell_parent(void);
/* The plan as lines for sh in *text (malloc'd), one line a change. Values are quoted so
 * that spaces, quotes, $, %, backticks and non-ASCII characters survive: POSIX shells and
 * fish take single quotes; PowerShell single-quoted literals joined by
 * [IO.Path]::PathSeparator, which Windows PowerShell 5.1 and pwsh 7 both read; cmd
 * `set "NAME=value"`. Returns NULL, or (with *text NULL) the name of the first variable
 * whose value sh cannot express (cmd: a quote or a line break). */
const char *cdm_shell_render(const cdm_shell *sh, const struct cdm_env_plan *plan, char **text);
/* "NAME=value" as a variable of the shell session, not exported (malloc'd); NULL when the
 * shell cannot hold the value (cmd: a quote or a line break). */
char *cdm_shell_assign(const cdm_shell *sh, const char *name, const char *value);

#endif
