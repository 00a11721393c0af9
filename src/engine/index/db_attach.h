/* The index's record of attached Python environments (cdm attach / cdm detach). */
#ifndef CDM_DB_ATTACH_H
#define CDM_DB_ATTACH_H

#include "internal.h"

/* One attachment. Each change is recorded before it is made and settled after (states
 * "attaching" -> "attached", "detaching" -> "detached"), so recovery can tell how far a
 * killed cdm came. */
struct db_attachment {
    long long id;
    char venv[4096];     /* the environment's folder */
    char folder[4096];   /* the wheel's library folder, replaced by the link */
    char project[4096];  /* whose link the environment follows */
    char target[4096];   /* where the link points: <project>/<link>/<lib_dir> */
    char original[4096]; /* where the wheel's folder was moved */
    char install_id[64]; /* what the project used at attach time */
    char wheel[200];     /* "nvidia_cudnn_cu13 9.19.0.56", "" when unknown */
    long long time;
    char state[16];
};

int db_attach_insert(cdm_ctx *ctx, struct db_attachment *a); /* sets a->id */
int db_attach_set_state(cdm_ctx *ctx, long long id, const char *state);
int db_attach_delete(cdm_ctx *ctx, long long id);
int db_attach_set_original(cdm_ctx *ctx, long long id, const char *original);
/* The newest record of folder that is not "detached"; CDM_ENOTFOUND (no message) when none. */
int db_attach_current(cdm_ctx *ctx, const char *folder, struct db_attachment *out);
/* The same for the environment venv, whose wheel folder may be gone (pip uninstall). */
int db_attach_current_of_venv(cdm_ctx *ctx, const char *venv, struct db_attachment *out);
/* Every "attached" record of a project. *out malloc'd. */
int db_attach_of_project(cdm_ctx *ctx, const char *project, struct db_attachment **out,
                         size_t *count);
/* Every record in state "attaching" or "detaching": what a crash left. *out malloc'd. */
/* The installs attachments of any state but "detached" name, each once (strv_free). */
int db_attach_install_ids(cdm_ctx *ctx, char ***ids);
int db_attach_unsettled(cdm_ctx *ctx, struct db_attachment **out, size_t *count);

#endif
