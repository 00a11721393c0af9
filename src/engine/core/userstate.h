/*
 * A user's own cdm state (the default version, what persisting it changed), kept as small
 * text files of name=value lines beside the user's state database, apart from the store, which may
 * be shared and read-only. Also the atomic write that these and the user's environment files get.
 */
#ifndef CDM_USERSTATE_H
#define CDM_USERSTATE_H

#include "internal.h"

/* The folder of the user's state database (CDM_STATE's folder, else the platform's place:
 * ${XDG_DATA_HOME:-~/.local/share}/cdm, %LOCALAPPDATA%\cdm), and <that folder>/<name>;
 * malloc'd. */
char *userstate_dir(const cdm_ctx *ctx);
char *userstate_path(const cdm_ctx *ctx, const char *name);

/* The state file name into *text; CDM_ENOTFOUND (no message) when there is none. */
int userstate_read(cdm_ctx *ctx, const char *name, struct strbuf *text);
/* The value of `key=value` in text, malloc'd; NULL when absent. */
char *userstate_get(const char *text, const char *key);
/* Write the state file name (making the folder), or with text NULL remove it. */
int userstate_write(cdm_ctx *ctx, const char *name, const char *text);

/* Replace cdm's own file at path by text all at once: a temporary file beside it, renamed
 * over it. A symbolic link at path is refused (an error naming it), never written
 * through. */
int text_file_write(cdm_ctx *ctx, const char *path, const char *text);
/* The same for a file of the user's that cdm edits (~/.profile): a symbolic link there is
 * the user's own arrangement (a dotfile manager keeps the file in a repository) and the
 * file it leads to is written, as the user's editor would. */
int text_file_write_through(cdm_ctx *ctx, const char *path, const char *text);

#endif
