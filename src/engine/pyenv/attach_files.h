/*
 * The files of an attachment: each cuDNN library of a wheel's folder, moved aside into a
 * kept folder and replaced by its own link to the project's file of the same name.
 *
 * The wheel's folder stays a real folder, so that pip and uv, which unlink or replace each
 * file they install or remove, replace cdm's links and never write into the store. Shared
 * by cdm attach, cdm detach and recovery (recover.c).
 */
#ifndef CDM_ATTACH_FILES_H
#define CDM_ATTACH_FILES_H

#include "db_attach.h"
#include "internal.h"
#include "pyenv.h"

/* The cuDNN libraries of folder by the names the loader asks for (libcudnn*.so.<major>;
 * cudnn*.dll on Windows): regular files, or links to a name beside them (a conda package's
 * sonames). Sorted, NULL-terminated, malloc'd (strv_free). Other names (the .so link, a
 * fully versioned file) are left: they lead to, or are led to by, the linked ones. */
int attach_wheel_files(cdm_ctx *ctx, const char *folder, bool windows, char ***names);

/* Is <folder>/<name> cdm's link to <target>/<name>: a symbolic link to it, or on Windows a
 * hard link to the same file? */
bool attach_file_is_ours(cdm_ctx *ctx, const char *folder, const char *target, const char *name,
                         bool windows);

/* Before a detach changes anything: the kept folder (a->original) is a folder of cdm's, or
 * gone with none of cdm's links left in the environment. A link there (which a restore
 * would follow, moving its files into the environment), or cdm's links left with nothing
 * kept to put back, is an error naming the fix: detach then changes nothing. */
int attach_kept_check(cdm_ctx *ctx, const struct db_attachment *a, bool windows);

/* Put the wheel's own files of a back from the kept folder (a->original): each one whose
 * name holds cdm's link or nothing goes back; where the environment has a file of its own
 * again (pip or uv reinstalled it), or the wheel is no longer the attached one
 * (wheel_changed), the kept copy is dropped and cdm's link removed. The kept folder goes
 * once empty. Counts in *restored and *dropped. */
int attach_restore(cdm_ctx *ctx, const struct db_attachment *a, bool wheel_changed, bool windows,
                   unsigned *restored, unsigned *dropped);

/* "nvidia_cudnn_cu13 9.19.0.56", as the record keeps a wheel; "" without a dist-info. */
void attach_wheel_text(const struct py_dist *dist, char *out, size_t size);

/* What changed in the environment since the attach a, in words into why ("" when
 * nothing): pip or uv reinstalled, upgraded or removed the wheel (dist: the wheel's
 * dist-info now), or replaced some of cdm's links. *wheel_changed: the wheel's dist-info is
 * no longer the recorded one. The record is judged by the disk, never trusted. */
void attach_drift(cdm_ctx *ctx, const struct db_attachment *a, const struct py_dist *dist,
                  bool *wheel_changed, char *why, size_t size);

/* After a detach of an uninstalled wheel: the wheel's folder and the folders above it that
 * are empty now, up to the environment's site-packages (not included). A pip older than
 * 23.1 leaves cdm's links (it will not remove a link that leads out of the environment),
 * and with them the folders that held them; once detach has removed the links, these
 * folders are as the uninstall would have left them. Only empty folders go. */
void attach_prune_empty(const char *folder, const char *venv);

/* Is the record a->folder a whole-folder link (attachments made before files were linked
 * one by one)? */
bool attach_is_folder_link(cdm_ctx *ctx, const struct db_attachment *a);

/* The rules an attach and a switch apply (attach.c, attach_switch.c). */
/* The folder of an install an attachment links into, below the install or the project's
 * link: bin_dir on Windows (where the DLLs are), lib_dir elsewhere. */
const char *attach_target_sub(const char *lib_dir, const char *bin_dir);
/* The distribution whose own version is the reference where no framework pins one: the
 * wheel or the conda package, not torch (origin PY_CUDNN_TORCH_LIB: NULL). */
const struct py_dist *attach_reference(const struct py_dist *dist, enum py_cudnn_origin origin);
/* Would the environment's frameworks (sites) accept in? why gets the first refusal. */
bool attach_suits(char *const *sites, const struct py_dist *wheel,
                  const struct cdm_install_info *in, char *why, size_t size);
/* The names of names that folder dir lacks, quoted and joined into missing; how many. */
size_t attach_missing_names(char *const *names, const char *dir, struct strbuf *missing);

#endif
