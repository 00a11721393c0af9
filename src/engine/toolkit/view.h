/*
 * Views: a folder in the store that holds a CUDA toolkit's folders with an install's cuDNN
 * files on top, made of links (as Spack and Nix build views), so that a project's link to
 * it works as CUDA_PATH: nvcc, cudart and cuDNN all through one folder.
 *
 * <root>/views/<install id>+cuda<toolkit version>-<8 hex of the toolkit folder's hash>:
 * the toolkit's top-level entries are links into it; the folders cuDNN goes into (include,
 * the toolkit's lib64 / lib / lib\x64, and bin on Windows) are real folders whose entries
 * link to the toolkit's, and the install's files are linked over them (a folder is only
 * opened up where both have one). Links: symbolic links on POSIX; on Windows junctions for
 * folders and hard links for files, else file symbolic links (fs_link_file).
 * A view is built in .staging and renamed into place, so it is there whole or not at all;
 * projects with the same pair share it; cdm gc removes those no project uses.
 */
#ifndef CDM_VIEW_H
#define CDM_VIEW_H

#include "internal.h"

/* A view's name (view_name, view_toolkit_version, store_is_view_name) is store_paths.h's:
 * the project's and the store's paths, below this room, tell a view by it. */

/* The folders of a toolkit (or of a view of it, which has the same) where the libraries
 * and the programs are, relative, '/' separated: lib64, lib or lib/x64; bin or bin/x64.
 * windows: the install is a Windows one. */
struct view_dirs {
    char lib[8], bin[8]; /* sized for the longest, lib/x64 and bin/x64: COPY_STR_ARRAY takes them */
};
struct view_dirs view_dirs(const char *dir, bool windows);

/* Make the view name of install in over the toolkit in tk_real unless it is there. */
int view_ensure(cdm_ctx *ctx, const struct cdm_install_info *in, const char *tk_real,
                const char *name);

/* Make rel (a/b) inside the view being built at view a real folder, each link to the base
 * folder's (a toolkit's, an install's) on the way replaced by a folder of links to its
 * entries; a toolkit's cuDNN files are left out unless all. */
int view_real_folder(cdm_ctx *ctx, const char *view, const char *base, const char *rel, bool all);

/* Build a view called name with build (into the folder at, in .staging) and rename it
 * into views/, in place of one there: whole or not at all. */
typedef int (*view_build_fn)(cdm_ctx *ctx, void *arg, const char *at);
int view_place(cdm_ctx *ctx, const char *name, view_build_fn build, void *arg);

/* A pair view (store_paths.h's pair_view_name): every entry of primary's folder, and in its
 * library folders (lib; bin on Windows) also's files of names primary has none of, so that
 * one link holds two cuDNN majors (libcudnn*.so.9 beside libcudnn*.so.8; the headers and
 * the unversioned libcudnn.so stay primary's). Made unless it is there whole. */
int pair_view_ensure(cdm_ctx *ctx, const struct cdm_install_info *primary,
                     const struct cdm_install_info *also, const char *name);

/* Check the view name of install in over the toolkit in tk_real: every top-level entry of
 * the toolkit there, every link leading somewhere, every file of the install reached at its
 * place. fn (may be NULL) gets each problem: the path inside the view, and what is wrong.
 * Returns how many there were. */
typedef void (*view_problem_fn)(void *arg, const char *path, const char *problem);
unsigned view_check(cdm_ctx *ctx, const struct cdm_install_info *in, const char *tk_real,
                    const char *name, view_problem_fn fn, void *arg);
/* The same for a pair view: primary's entries there and leading somewhere, each of both
 * installs' library files reached (also's where primary has no file of its name). */
unsigned pair_view_check(cdm_ctx *ctx, const struct cdm_install_info *primary,
                         const struct cdm_install_info *also, const char *name, view_problem_fn fn,
                         void *arg);

/* Remove the views no project's current (or pending) link change points to; *removed
 * counts them. Under the store lock. */
int views_gc(cdm_ctx *ctx, unsigned *removed);

#endif
