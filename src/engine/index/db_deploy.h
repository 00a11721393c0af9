/* The index's record of deploys (cdm deploy): what each placed in a toolkit, and what was
 * there before. */
#ifndef CDM_DB_DEPLOY_H
#define CDM_DB_DEPLOY_H

#include "internal.h"

/* One deploy. Recorded "deploying" with all its files before the first is touched,
 * "deployed" once all are in place, "undoing" while cdm deploy --undo puts them back; the
 * record goes when the toolkit is as it was. */
struct db_deploy {
    long long id;
    char toolkit[4096]; /* the toolkit's folder, canonical */
    char install_id[64];
    char toolkit_version[64];
    long long time;
    char state[16];
};

/* One file a deploy placed, its path relative to the toolkit ('/' separated). */
struct db_deploy_file {
    char path[1024];
    char before_kind[8];    /* "none", "file", "link" */
    char before_sha256[65]; /* a file: its content, kept in <root>/.deployed/<sha256> */
    char before_link[1024]; /* a link: its target */
    int before_mode;        /* a file: its permission bits, -1 where none */
};

/* Record a deploy and its files in one transaction (sets d->id). */
int db_deploy_insert(cdm_ctx *ctx, struct db_deploy *d, const struct db_deploy_file *files,
                     size_t n);
/* The deploy into toolkit; CDM_ENOTFOUND (no message) when none. */
/* The installs deployed into a toolkit, each once (strv_free). */
int db_deploy_install_ids(cdm_ctx *ctx, char ***ids);
int db_deploy_get(cdm_ctx *ctx, const char *toolkit, struct db_deploy *out);
/* Every deploy not "deployed": what a crash left. *out malloc'd. */
int db_deploy_unsettled(cdm_ctx *ctx, struct db_deploy **out, size_t *count);
int db_deploy_files(cdm_ctx *ctx, long long id, struct db_deploy_file **out, size_t *count);
int db_deploy_set_state(cdm_ctx *ctx, long long id, const char *state);
/* Delete the record with its files. */
int db_deploy_delete(cdm_ctx *ctx, long long id);
/* Whether any deploy still keeps a file of this content. */
int db_deploy_keeps(cdm_ctx *ctx, const char *sha256, bool *kept);

#endif
