/*
 * Recovery: the work a crash or a kill interrupted, finished or undone when the store is
 * opened. Each crash-safe protocol writes its journal (a record in the index or the user's
 * state) before it touches the disk, so the next writer under the protocol's lock can tell
 * how far it got. The protocols, their steps and their recovery are in journal/, one file
 * each; this table runs them in the order their locks are taken.
 */
#include "recover.h"
#include "journal_attach.h"
#include "journal_deploy.h"
#include "journal_install.h"
#include "journal_link.h"

static const struct recovery {
    unsigned kind;  /* the recover_protocol bit */
    unsigned locks; /* the lock it runs under: RECOVER_STATE (the user's state's), or
                     * RECOVER_STORE (the store's) */
    int (*recover)(cdm_ctx *ctx, unsigned *done);
} recoveries[] = {
    {RECOVER_LINKS, RECOVER_STATE, journal_link_recover},
    {RECOVER_ATTACH, RECOVER_STATE, journal_attach_recover},
    {RECOVER_DEPLOYS, RECOVER_STORE, journal_deploy_recover},
    {RECOVER_INSTALLS, RECOVER_STORE, journal_install_recover},
};

int recover_run(cdm_ctx *ctx, unsigned protocols, unsigned *done)
{
    int rc = CDM_OK;
    for (size_t i = 0; i < CDM_ARRAY_LEN(recoveries) && !rc; i++)
        if (protocols & recoveries[i].kind)
            rc = recoveries[i].recover(ctx, done);
    return rc;
}

unsigned recover_locks(unsigned protocols)
{
    unsigned locks = 0;
    for (size_t i = 0; i < CDM_ARRAY_LEN(recoveries); i++)
        if (protocols & recoveries[i].kind)
            locks |= recoveries[i].locks;
    return locks;
}
