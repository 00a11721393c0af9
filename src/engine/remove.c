/*
 * cdm remove: the folder moves to .staging/<id>.removing, the record goes, the folder is
 * deleted. A crash before the record goes puts the folder back (recover.c); after, the
 * leftover is deleted.
 */
#include "db.h"
#include "links.h"
#include "store.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdlib.h>

int cdm_remove(cdm_ctx *ctx, const struct cdm_remove_request *req, struct cdm_install_info *removed)
{
    int rc = store_open(ctx, true);
    if (rc || (rc = cdm_resolve(ctx, req->spec, req->cuda, removed)))
        return rc;
    char **users = NULL;
    if ((rc = db_projects_using(ctx, removed->id, &users)))
        return rc;
    if (users[0] && !req->force) {
        struct strbuf list = STRBUF_INIT;
        for (char **u = users; *u; u++)
            sb_addf(&list, "%s'%s'", u == users ? "" : ", ", *u);
        rc = cdm_error_set(ctx, CDM_EBUSY,
                           "cannot remove %s: linked by %s; run 'cdm unlink' there, or pass "
                           "--force to unlink them",
                           removed->id, sb_str(&list));
        sb_free(&list);
    }
    for (char **u = users; !rc && *u; u++)
        rc = project_unlink_for_remove(ctx, *u);
    strv_free(users);
    if (rc)
        return rc;
    fs_crash_point("remove-unlinked");
    char *final = store_install_path(ctx, removed->id);
    char *aside = store_staging_path(ctx, removed->id, "removing");
    bool present = fs_kind(final) == FS_DIR;
    if (present)
        rc = fs_rename(ctx, final, aside);
    fs_crash_point("remove-moved");
    if (!rc && !(rc = db_install_delete(ctx, removed->id)) && present) {
        fs_crash_point("remove-recorded");
        rc = fs_remove_tree(ctx, aside);
    }
    free(aside);
    free(final);
    return rc;
}
