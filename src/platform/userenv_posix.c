/* A user's places on POSIX systems (userenv.h): XDG folders under $HOME; no registry. */
#include "platform/userenv.h"
#include "platform/posix_util.h"
#include "base/error.h"
#include "base/util.h"

#include <stdlib.h>

bool userenv_uses_registry(void)
{
    return false;
}

char *userenv_envd_dir(void)
{
    return posix_xdg_dir("XDG_CONFIG_HOME", ".config", "environment.d");
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
