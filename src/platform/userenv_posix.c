/* A user's places on POSIX systems (userenv.h): XDG folders under $HOME; no registry. */
#include "platform/userenv.h"
#include "base/error.h"
#include "base/util.h"

#include <stdlib.h>

/* $var when it is an absolute path, else $HOME/fallback; then leaf below it. */
static char *xdg_dir(const char *var, const char *fallback, const char *leaf)
{
    const char *xdg = getenv(var);
    if (xdg && xdg[0] == '/')
        return path_join(xdg, leaf);
    const char *home = getenv("HOME");
    char *base = path_join(home && *home ? home : "/", fallback);
    char *out = path_join(base, leaf);
    free(base);
    return out;
}

bool userenv_uses_registry(void)
{
    return false;
}

char *userenv_envd_dir(void)
{
    return xdg_dir("XDG_CONFIG_HOME", ".config", "environment.d");
}

char *userenv_profile(void)
{
    const char *home = getenv("HOME");
    return path_join(home && *home ? home : "/", ".profile");
}

int userenv_reg_get(cdm_ctx *ctx, const char *name, char **value, bool *expand)
{
    *value = NULL;
    *expand = false;
    return cdm_error_set(ctx, CDM_EUNSUPPORTED, "cannot read '%s': this system has no registry",
                         name);
}

int userenv_reg_set(cdm_ctx *ctx, const char *name, const char *value, bool expand)
{
    (void)value;
    (void)expand;
    return cdm_error_set(ctx, CDM_EUNSUPPORTED, "cannot set '%s': this system has no registry",
                         name);
}

void userenv_broadcast(void)
{
}
