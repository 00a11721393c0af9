/*
 * cdm default: the version used outside any project. The choice is the user's, kept in the
 * user's state folder (beside the state database) as a store root and an install id (not as a link
 * in the store, which may be shared read-only, and not a junction, which some file systems cannot
 * hold); the environment of new sessions follows it when persisted (persist.c).
 */
#include "default.h"
#include "persist.h"
#include "store.h"
#include "userstate.h"
#include "version.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_NAME "default"

char *default_file(const cdm_ctx *ctx)
{
    return userstate_path(ctx, DEFAULT_NAME);
}

int default_read(cdm_ctx *ctx, struct default_choice *out)
{
    memset(out, 0, sizeof(*out));
    struct strbuf text = STRBUF_INIT;
    int rc = userstate_read(ctx, DEFAULT_NAME, &text);
    if (rc) {
        sb_free(&text);
        return rc;
    }
    char *root = userstate_get(sb_str(&text), "root");
    char *id = userstate_get(sb_str(&text), "id");
    struct version_spec parsed;
    if (!root || !*root || !id || !version_spec_parse(id, &parsed) || parsed.latest ||
        parsed.version.count != 4 || !parsed.cuda ||
        !copy_str(out->root, sizeof(out->root), root) || !copy_str(out->id, sizeof(out->id), id)) {
        char *file = default_file(ctx);
        rc = cdm_error_set(ctx, CDM_ECONFIG,
                           "cannot read the default version from '%s': it needs root= and id= "
                           "lines; run 'cdm default VERSION' to write it again",
                           file);
        free(file);
    }
    free(id);
    free(root);
    sb_free(&text);
    return rc;
}

static int default_write(cdm_ctx *ctx, const struct default_choice *c)
{
    if (!*c->id)
        return userstate_write(ctx, DEFAULT_NAME, NULL);
    char *text = xasprintf("# the cuDNN cdm uses outside any project; 'cdm default VERSION' "
                           "changes it\nroot=%s\nid=%s\n",
                           c->root, c->id);
    int rc = userstate_write(ctx, DEFAULT_NAME, text);
    free(text);
    return rc;
}

/* The install of the default, in this store only: its folders are needed to persist it. */
static int default_install(cdm_ctx *ctx, const struct default_choice *c,
                           struct cdm_install_info *in)
{
    if (strcmp(c->root, cdm_root(ctx)))
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "the default %s is in the store '%s', not in '%s'; pass --root %s, "
                             "or run 'cdm default VERSION' to choose one here",
                             c->id, c->root, cdm_root(ctx), c->root);
    return cdm_resolve(ctx, c->id, 0, in);
}

static int fill(cdm_ctx *ctx, const struct default_choice *c, struct cdm_default_result *out)
{
    COPY_STR_ARRAY(out->id, c->id);
    if (*c->id)
        COPY_STR_ARRAY(out->root, c->root);
    char *path = *c->id ? path_join(c->root, c->id) : xstrdup("");
    int rc = copy_path(ctx, out->path, sizeof(out->path), path);
    free(path);
    char *file = default_file(ctx);
    if (!rc)
        rc = copy_path(ctx, out->state, sizeof(out->state), file);
    free(file);
    return rc;
}

int cdm_default(cdm_ctx *ctx, const struct cdm_default_request *req, struct cdm_default_result *out)
{
    memset(out, 0, sizeof(*out));
    struct default_choice cur, next;
    struct cdm_install_info in;
    bool have_install = false;
    int rc = default_read(ctx, &cur);
    if (rc == CDM_ENOTFOUND)
        rc = CDM_OK;
    if (rc)
        return rc;
    COPY_STR_ARRAY(out->previous_id, cur.id);
    next = cur;
    if (req->spec) {
        if ((rc = cdm_resolve(ctx, req->spec, req->cuda, &in)))
            return rc;
        have_install = true;
        if ((rc = copy_path(ctx, next.root, sizeof(next.root), cdm_root(ctx))))
            return rc;
        COPY_STR_ARRAY(next.id, in.id);
    }
    if (req->unset)
        memset(&next, 0, sizeof(next));
    bool moved = strcmp(cur.id, next.id) || (*next.id && strcmp(cur.root, next.root));
    bool persisted = persist_is_on(ctx);
    if (!*next.id && req->persist)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "no default version to persist; run 'cdm default VERSION --persist'");
    if (moved && !req->dry_run && (rc = default_write(ctx, &next)))
        return rc;
    out->changed = moved;
    bool changed = false;
    bool applied = false;
    if (req->unpersist || (req->unset && persisted)) {
        rc = persist_remove(ctx, req->dry_run, &changed);
        persisted = false;
    } else if (*next.id && (req->persist || (persisted && moved))) {
        if (!have_install && !(rc = default_install(ctx, &next, &in)))
            have_install = true;
        if (!rc)
            rc = persist_apply(ctx, &in, req->dry_run, &changed, out->persisted_in,
                               sizeof(out->persisted_in));
        applied = persisted = !rc;
    }
    if (rc && moved && !req->dry_run) {
        /* New sessions could not follow: the default stays what it was. */
        struct saved_error saved = error_save(ctx);
        default_write(ctx, &cur);
        return error_restore(ctx, &saved);
    }
    if (rc)
        return rc;
    out->persist_changed = changed;
    out->changed |= changed;
    if ((rc = fill(ctx, &next, out)))
        return rc;
    out->persisted = persisted;
    if (persisted && !applied)
        persist_where(ctx, out->persisted_in, sizeof(out->persisted_in));
    return CDM_OK;
}
