/*
 * A user's environment: how this system keeps the environment of new sessions. Windows
 * keeps it in the registry (HKCU\Environment, userenv_win32.c); Linux in files the session reads
 * (systemd's environment.d and the login shell's profile, userenv_posix.c). Each file
 * answers for its own system and says CDM_EUNSUPPORTED (or NULL) for the other's.
 */
#ifndef CDM_USERENV_H
#define CDM_USERENV_H

#include "cdm.h"

#include <stdbool.h>

/* True where new sessions take their environment from the registry (Windows). */
bool userenv_uses_registry(void);

/* Linux: ${XDG_CONFIG_HOME:-~/.config}/environment.d and ~/.profile (malloc'd); NULL on
 * Windows. */
char *userenv_envd_dir(void);
char *userenv_profile(void);

/* Windows: a value of HKCU\Environment. *value (malloc'd) is NULL when there is none;
 * *expand tells REG_EXPAND_SZ from REG_SZ. */
int userenv_reg_get(cdm_ctx *ctx, const char *name, char **value, bool *expand);
/* Set (as REG_EXPAND_SZ when expand) or, with value NULL, delete a value. */
int userenv_reg_set(cdm_ctx *ctx, const char *name, const char *value, bool expand);
/* Tell running programs (Explorer, which starts the next shells) that the environment
 * changed: WM_SETTINGCHANGE with "Environment", waiting at most a few seconds. */
void userenv_broadcast(void);

#endif
