/* A plan as a shell's text: one syntax row per shell (shell.c), compared with golden files
 * by the unit tests. */
#ifndef CDM_SHELL_H
#define CDM_SHELL_H

#include "cdm.h"
#include "base/util.h"
#include "platform/shell_host.h"

/* Text for the shell, one line per change, path lists joined with pf's separator. Returns
 * the name of the first variable whose value the shell cannot express (cmd: a quote or a
 * line break), NULL when all went well. */
const char *shell_render(const cdm_shell *sh, const struct shell_platform *pf,
                         const struct cdm_env_plan *plan, struct strbuf *out);

/* One value quoted for the shell, for tests. */
void shell_quote(const cdm_shell *sh, struct strbuf *out, const char *value);

#endif
