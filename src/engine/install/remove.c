/* cdm remove: the projects that use the install are refused or unlinked, then the install
 * goes (journal_install.h: its steps and their recovery). */
#include "db.h"
#include "journal_install.h"
#include "links.h"
#include "store.h"
#include "upstream.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>

/* Refuse while projects link to id: those whose folder exists are unlinked there, the
 * records of folders that are gone are dropped by cdm gc. */
static int refuse_in_use(cdm_ctx *ctx, const char *id, char **users)
{
    struct strbuf here = STRBUF_INIT, gone = STRBUF_INIT;
    for (char **u = users; *u; u++) {
        struct strbuf *list = cdm_project_gone(*u) ? &gone : &here;
        sb_addf(list, "%s'%s'", list->len ? ", " : "", *u);
    }
    struct strbuf why = STRBUF_INIT;
    if (here.len)
        sb_addf(&why, "linked by %s; run 'cdm unlink' there", sb_str(&here));
    if (gone.len)
        sb_addf(&why,
                "%srecorded as linked by %s, project folder(s) that no longer exist; run "
                "'cdm gc' to drop those records",
                here.len ? "; " : "", sb_str(&gone));
    int rc = cdm_error_set(ctx, CDM_EBUSY, "cannot remove %s: %s, or pass --force to unlink them",
                           id, sb_str(&why));
    sb_free(&why);
    sb_free(&gone);
    sb_free(&here);
    return rc;
}

int cdm_remove(cdm_ctx *ctx, const struct cdm_remove_request *req, struct cdm_install_info *removed)
{
    int rc = store_open(ctx, STORE_WRITE, RECOVER_ALL);
    if (rc)
        return rc;
    if ((rc = cdm_resolve(ctx, req->spec, req->cuda, removed))) {
        if (rc == CDM_ENOTFOUND)
            cdm_error_set(ctx, rc,
                          "cannot remove %s: no installed version matches it; see 'cdm list'",
                          req->spec);
        return rc;
    }
    if ((rc = upstream_refuse(ctx, removed, "remove")))
        return rc;
    char **users = NULL;
    if ((rc = db_projects_using(ctx, removed->id, &users)))
        return rc;
    if (users[0] && !req->force)
        rc = refuse_in_use(ctx, removed->id, users);
    for (char **u = users; !rc && *u; u++) {
        bool gone = cdm_project_gone(*u);
        if (!(rc = project_unlink_for_remove(ctx, *u)))
            cdm_warn(ctx,
                     gone ? "dropped the record of '%s' linking %s: that folder no longer exists"
                          : "unlinked '%s' from %s (--force)",
                     *u, removed->id);
    }
    strv_free(users);
    if (rc)
        return rc;
    return journal_install_remove(ctx, removed->id);
}
