/*
 * Where things are in a store, in one place:
 *
 *   <root>/<id>/                      an install (the archive's content, top folder stripped)
 *   <root>/cdm.db                     the index
 *   <root>/.lock                      held by a writer for as long as it runs
 *   <root>/.staging/<id>.<pid>.tmp    an extraction in progress
 *   <root>/.staging/<id>.ready        checked, about to be moved into place
 *   <root>/.staging/<id>.old          an install being replaced
 *   <root>/.staging/<id>.removing     an install being removed
 *   <root>/downloads/<name>.partial   an archive being downloaded (outside the store lock)
 *   <root>/.deployed/<sha256>         a toolkit's file that cdm deploy replaced, by content
 *   <root>/views/<id>+cuda<v>-<hash>/ a CUDA toolkit with install <id> on top, made of links
 *                                     (view.h), built as .staging/<name>.<pid>.tmp
 *
 * and the user's state, apart from any store (CDM_STATE, else the platform's place):
 *
 *   <state>                           the state database (projects' history, attachments)
 *   <state>.lock                      held by a writer of the state for as long as it runs
 *   <state's folder>/.attached/<n>/   a Python environment's cuDNN wheel folder, kept while
 *                                     cdm attach has put a link in its place (attachments
 *                                     made before the state had its own file keep theirs
 *                                     in <root>/.attached/<n>/, as recorded)
 *
 * The root is settled once, when the context is made; the rest derives from it. Results
 * are malloc'd.
 */
#ifndef CDM_STORE_PATHS_H
#define CDM_STORE_PATHS_H

#include "internal.h"

/* The root: given (--root or CDM_ROOT), else [store] root, else the platform's default;
 * made absolute. */
char *store_root_choose(const char *given, const char *configured);

char *store_index_path(const cdm_ctx *ctx);
char *store_lock_path(const cdm_ctx *ctx);
/* Who holds the lock ("pid 123: cdm install x.zip"), written by each holder, read by a
 * process that waits: a separate file, since Windows locks the lock file's every byte. */
char *store_lock_holder_path(const cdm_ctx *ctx);
char *store_staging_dir(const cdm_ctx *ctx);
/* .staging/<id>.<suffix>, suffix "ready", "old" or "removing" */
char *store_staging_path(const cdm_ctx *ctx, const char *id, const char *suffix);
/* .staging/<id>.<pid>.tmp, this process's extraction folder */
char *store_staging_tmp(const cdm_ctx *ctx, const char *id);
/* The id in a name found in .staging/ (NULL when it is none of cdm's), and *suffix the
 * part after it ("ready", "old", "removing", "tmp"). */
char *store_staging_id(const char *name, const char **suffix);

char *store_install_path(const cdm_ctx *ctx, const char *id);
/* downloads/, where archives are downloaded to (as <name>.partial) before an install */
char *store_downloads_dir(const cdm_ctx *ctx);
char *state_lock_path(const cdm_ctx *ctx);
/* <state's folder>/.attached/<n>: where attachment n keeps the wheel folder it replaced */
char *state_attached_dir(const cdm_ctx *ctx, long long n);
/* .deployed/ and .deployed/<sha256>: the files cdm deploy replaced, kept for its undo */
char *store_deployed_dir(const cdm_ctx *ctx);
char *store_deployed_object(const cdm_ctx *ctx, const char *sha256);
/* A view's name: "<install id>+cuda<toolkit version>-<8 hex of the toolkit's real folder's
 * hash>", for install_id over the toolkit of version tk_version in folder tk_real (links
 * resolved); malloc'd. */
char *view_name(const char *install_id, const char *tk_version, const char *tk_real);
/* The view an activation makes of an install over a toolkit no link records
 * (activate_toolkit.h): view_name's with SHELL_VIEW_SUFFIX after it, so that cdm gc tells
 * it from a link's and keeps it while a shell may use it; malloc'd. */
#define SHELL_VIEW_SUFFIX ".shell"
char *shell_view_name(const char *install_id, const char *tk_version, const char *tk_real);
bool view_is_shells(const char *name);
/* Whether the last component of path is a view's name (an install's id never holds '+'). */
bool store_is_view_name(const char *path);
/* The toolkit's version in a view's name ("13.0.88"); "" when name is none. */
void view_toolkit_version(const char *name, char *out, size_t size);
/* A pair view's name: "<primary id>+<also id>", the project's install with a second cuDNN
 * major beside it (cdm link --also); malloc'd. */
char *pair_view_name(const char *primary_id, const char *also_id);
/* The second install's id in a pair view's name (the last component of path) into also;
 * false, with also "", when it is no pair view (a toolkit's, or no view). */
bool pair_view_also(const char *path, char *also, size_t size);

/* views/, and the view called name in it */
char *store_views_dir(const cdm_ctx *ctx);
char *store_view_path(const cdm_ctx *ctx, const char *name);
/* The install id a path names when it is a folder right below the root (or an upstream's
 * root, [store] upstream), or a view of it
 * in views/ (links in the path resolved); false, with id "", when it is not. */
bool store_install_of(const cdm_ctx *ctx, const char *path, char *id, size_t size);
/* True when path is the folder of install id (the same folder through links counts). */
bool store_path_is_install(const cdm_ctx *ctx, const char *path, const char *id);

/* Move an install's folder between its place and .staging/: an install's folders carry no
 * write bits (fs_seal_tree), and a folder without one cannot change its parent, so the
 * folder gets its owner's write bit for the move and loses it again after (failed or not). */
int store_move_install(cdm_ctx *ctx, const char *from, const char *to);

/* cdm's own entries in the store (.staging, downloads, .deployed, views, .lock-holder) are never
 * followed: store_own_dir accepts a real folder at path (making it when make and nothing is
 * there, CDM_ENOTFOUND without a message when not make), store_own_file a regular file or
 * nothing; a link or another kind there is refused, the message naming it and what to do,
 * so that nothing is written, read or deleted through it. */
int store_own_dir(cdm_ctx *ctx, const char *path, bool make);
int store_own_file(cdm_ctx *ctx, const char *path);

#endif
