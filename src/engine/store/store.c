/* Opening the store: readers, and writers under its lock, after recovery. */
#include "store.h"
#include "db.h"
#include "recover.h"
#include "store_paths.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>

/* The recoveries of protocols this process has not run yet, under the locks they need
 * (the store's for RECOVER_STORE, the state's for RECOVER_STATE). */
static int recover_once(cdm_ctx *ctx, unsigned protocols)
{
    unsigned todo = protocols & ~ctx->recovered;
    if (!todo)
        return CDM_OK;
    unsigned done = 0;
    int rc = recover_run(ctx, todo, &done);
    if (!rc)
        ctx->recovered |= todo;
    if (done)
        cdm_warn(ctx, "cleaned up %u leftover(s) of interrupted work in '%s' (as 'cdm gc' does)",
                 done, recover_locks(todo) & RECOVER_STORE ? ctx->root : ctx->state_path);
    return rc;
}

static int open_settled(cdm_ctx *ctx, unsigned touches);

/* A store this cdm may not write: say whose it is. */
static int refuse_shared(cdm_ctx *ctx)
{
    char *index = store_index_path(ctx);
    char *owner = fs_owner_name(fs_kind(index) == FS_FILE ? index : ctx->root);
    cdm_error_wrap(ctx, CDM_EUNSUPPORTED, "cannot change the store '%s'", ctx->root);
    int rc = cdm_error_append(ctx, CDM_EUNSUPPORTED,
                              "; versions are installed and removed there by its writer (%s, "
                              "who owns it); for versions of your own, use a store you may "
                              "write (--root DIR), where 'cdm install --from-store %s VERSION' "
                              "copies one from this one",
                              owner ? owner : "its owner", ctx->root);
    free(owner);
    free(index);
    return rc;
}

/*
 * The store's lock for a writer. A second writer waits: after a second without it, it says
 * who holds it (the holder's note: pid and command) so that a wait is never silent; then it
 * waits on. The holder's note is written once the lock is held.
 */
static int lock_store(cdm_ctx *ctx)
{
    char *lock_path = store_lock_path(ctx);
    char *holder_path = store_lock_holder_path(ctx);
    int rc = fs_lock_try(ctx, lock_path, &ctx->lock);
    for (int i = 0; rc == CDM_EBUSY && i < 10; i++) {
        fs_sleep_ms(100);
        rc = fs_lock_try(ctx, lock_path, &ctx->lock);
    }
    if (rc == CDM_EBUSY) {
        struct strbuf holder = STRBUF_INIT;
        if (fs_kind(holder_path) == FS_FILE && fs_read_file(holder_path, 1024, &holder) &&
            holder.len && holder.buf[holder.len - 1] == '\n')
            holder.buf[--holder.len] = '\0';
        cdm_warn(ctx, "waiting for the store's lock '%s', held by %s", lock_path,
                 holder.len ? sb_str(&holder) : "another cdm process");
        sb_free(&holder);
        rc = fs_lock(ctx, lock_path, &ctx->lock);
    }
    /* A new file each time (never one written through a link, or shared by a hard link) */
    if (!rc && !(rc = store_own_file(ctx, holder_path))) {
        struct fs_file *f = NULL;
        char *text = xasprintf("pid %llu (%s)\n", (unsigned long long)fs_process_id(),
                               ctx->options.command ? ctx->options.command : "cdm");
        struct saved_error saved = error_save(ctx);
        if ((fs_kind(holder_path) == FS_NONE || !fs_remove_file(ctx, holder_path)) &&
            !fs_file_create(ctx, holder_path, false, &f) &&
            fs_file_write(ctx, f, text, strlen(text)))
            fs_file_abort(f);
        else if (f)
            fs_file_close(ctx, f);
        error_restore(ctx, &saved); /* only a note for a waiting writer */
        free(text);
    }
    free(holder_path);
    free(lock_path);
    return rc;
}

/* The user's state's lock, taken after the store's by a process that needs both. */
static int lock_state(cdm_ctx *ctx)
{
    char *dir = path_dirname(ctx->state_path);
    char *lock_path = state_lock_path(ctx);
    int rc = fs_mkdir_p(ctx, dir);
    if (!rc)
        rc = fs_lock(ctx, lock_path, &ctx->state_lock);
    free(lock_path);
    free(dir);
    return rc;
}

static int open_read(cdm_ctx *ctx)
{
    return ctx->db ? CDM_OK : db_open_read(ctx);
}

static int open_write(cdm_ctx *ctx, unsigned touches)
{
    if (ctx->db && ctx->lock)
        return recover_once(ctx, touches);
    if (ctx->config.shared_read_only) {
        cdm_error_set(ctx, CDM_EUNSUPPORTED,
                      "it is shared read-only ([store] shared in config '%s')",
                      ctx->config.path ? ctx->config.path : "?");
        return refuse_shared(ctx);
    }
    /* An index a reader opened before (a command that looked first) is kept: the same
     * file, which SQLite reads afresh in each transaction, so the look costs no second
     * open. One in memory (there was no store) or read-only is opened again. */
    if (!db_on_file(ctx))
        db_close(ctx);
    int rc;
    bool existed = fs_kind(ctx->root) == FS_DIR;
    char *db_path = store_index_path(ctx);
    char *staging = store_staging_dir(ctx);
    /* a link where cdm keeps its own folder is refused as such, not as a shared store */
    char *holder = store_lock_holder_path(ctx);
    bool own = (fs_kind(staging) == FS_NONE || !(rc = store_own_dir(ctx, staging, false))) &&
               !(rc = store_own_file(ctx, holder));
    free(holder);
    if (own && !(rc = fs_mkdir_p(ctx, ctx->root)) && !(rc = store_own_dir(ctx, staging, true)) &&
        !(rc = lock_store(ctx)) && !(rc = db_open(ctx, db_path, DB_READ_WRITE)) &&
        db_read_only(ctx))
        rc = cdm_error_set(ctx, CDM_EIO, "its index '%s' is read-only here", db_path);
    if (rc && existed && own) {
        /* A store that is there but cannot be written (a read-only mount, another user's) */
        rc = refuse_shared(ctx);
    }
    if (!rc && !(rc = lock_state(ctx)) && !(rc = db_state_open(ctx)))
        rc = recover_once(ctx, touches);
    free(staging);
    free(db_path);
    return rc;
}

int cdm_store_open(cdm_ctx *ctx, enum cdm_store_mode mode)
{
    /* Nothing recovered here: each call recovers what it touches when it opens. */
    return store_open(ctx,
                      mode == CDM_STORE_WRITE   ? STORE_WRITE
                      : mode == CDM_STORE_STATE ? STORE_STATE
                                                : STORE_READ,
                      0);
}

static int open_state(cdm_ctx *ctx, unsigned touches)
{
    if (ctx->state_lock)
        return recover_once(ctx, touches & RECOVER_STATE);
    /* The store as a reader does (finishing a kill's leftovers where it may), then the
     * state for writing under its own lock: a link needs no write to the store. */
    int rc = open_settled(ctx, touches);
    if (!rc && !(rc = lock_state(ctx)) && !(rc = db_state_open(ctx)))
        rc = recover_once(ctx, touches & RECOVER_STATE);
    return rc;
}

/* Anything of protocols a kill may have left half done, or a writer is doing now? */
static int work_visible(cdm_ctx *ctx, unsigned protocols, bool *visible)
{
    *visible = false;
    if (!(protocols & RECOVER_INSTALLS))
        return db_work_pending(ctx, protocols, visible);
    char *staging = store_staging_dir(ctx);
    char **names = NULL;
    int rc = fs_list_dir(ctx, staging, &names);
    free(staging);
    if (rc == CDM_ENOTFOUND)
        return CDM_OK; /* no store yet, nothing ever written */
    if (rc)
        return rc;
    *visible = names[0] != NULL;
    strv_free(names);
    return *visible ? CDM_OK : db_work_pending(ctx, protocols, visible);
}

bool store_installs_interrupted(cdm_ctx *ctx)
{
    bool visible = false;
    return open_read(ctx) == CDM_OK && work_visible(ctx, RECOVER_INSTALLS, &visible) == CDM_OK &&
           visible;
}

static int open_settled(cdm_ctx *ctx, unsigned touches)
{
    bool visible = false;
    unsigned todo = touches & ~ctx->recovered;
    int rc = open_read(ctx);
    if (rc || ctx->lock || ctx->state_lock || !todo || (rc = work_visible(ctx, todo, &visible)) ||
        !visible)
        return rc;
    /* The locks the recoveries need, in the writers' order: the store's, then the state's. */
    char *lock_path = store_lock_path(ctx);
    char *state_lock = state_lock_path(ctx);
    unsigned locks = recover_locks(todo);
    if (locks & RECOVER_STORE)
        rc = fs_lock_try(ctx, lock_path, &ctx->lock);
    if (!rc && (locks & RECOVER_STATE) && fs_kind(ctx->state_path) == FS_FILE)
        rc = fs_lock_try(ctx, state_lock, &ctx->state_lock);
    free(state_lock);
    free(lock_path);
    if (rc == CDM_EBUSY) {
        rc = CDM_OK; /* a writer is at work, and finishes what it finds first */
    } else if (rc) {
        /* A store this user may read but not write: say so, and read it as it is. */
        cdm_warn(ctx, "%s; interrupted work in '%s' is left for a cdm that may write there",
                 cdm_error_message(ctx), ctx->root);
        rc = CDM_OK;
    } else {
        rc = recover_once(ctx, todo);
    }
    fs_unlock(ctx->state_lock);
    ctx->state_lock = NULL;
    fs_unlock(ctx->lock);
    ctx->lock = NULL;
    return rc;
}

void store_install_state(cdm_ctx *ctx, struct cdm_install_info *in)
{
    if (in->state != CDM_INSTALL_OK || fs_kind(in->path) == FS_DIR)
        return;
    char *aside = store_staging_path(ctx, in->id, "removing");
    in->state = fs_kind(aside) == FS_DIR ? CDM_INSTALL_REMOVING : CDM_INSTALL_MISSING;
    free(aside);
}

int store_open(cdm_ctx *ctx, enum store_access access, unsigned touches)
{
    switch (access) {
    case STORE_READ:
        return open_read(ctx);
    case STORE_SETTLED:
        return open_settled(ctx, touches);
    case STORE_STATE:
        return open_state(ctx, touches);
    case STORE_WRITE:
        return open_write(ctx, touches);
    }
    return cdm_error_set(ctx, CDM_EINVAL, "no such way to open the store");
}
