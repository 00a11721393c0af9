/*
 * Identical files across installs stored once. The cuda12 and cuda13 builds of one version
 * share their headers; a wheel and an archive of one version may share everything. Before
 * an install is committed, each of its staged files that another settled install recorded
 * with the same SHA-256, size and mode is replaced by a hard link to that install's file:
 * read-only like every file of the store, so neither install's verify can tell, and a
 * removal of either takes only its own name. The other file is read and hashed first, so a
 * file changed by hand is never shared. Where a hard link cannot be made (another file
 * system, a file system without them, too many links), the copy stays: nothing fails for
 * it. Files under DEDUP_SHARE_MIN are not shared.
 */
#include "db.h"
#include "install.h"
#include "store_paths.h"
#include "verify_hash.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

/* A file smaller than a file system's block (4 KiB on ext4 and NTFS) would save at most that
 * block, and the small files (cudnn_version.h, stubs) are where versions differ and where a
 * hand edit of one install is most likely: they stay each install's own. */

/* The other installs' files recorded like the staged ones: files[i] of the staged ones may
 * share read[k] (of install[k]) when read[k], read on the store's threads, is as recorded. */
struct candidates {
    size_t *file;        /* index into the staged files */
    char (*install)[64]; /* the install whose file it is */
    struct file_hash *read;
    size_t n;
};

static void find_candidates(cdm_ctx *ctx, const char *id, const struct db_file *files, size_t n,
                            struct candidates *c)
{
    c->file = xcalloc(n ? n : 1, sizeof(*c->file));
    c->install = xcalloc(n ? n : 1, sizeof(*c->install));
    c->read = xcalloc(n ? n : 1, sizeof(*c->read));
    c->n = 0;
    for (size_t i = 0; i < n; i++) {
        const struct db_file *f = &files[i];
        struct db_file_ref ref;
        if (f->link_target || !f->sha256 || f->size < DEDUP_SHARE_MIN ||
            db_file_alike(ctx, f->sha256, f->size, f->mode, id, &ref) != CDM_OK)
            continue;
        char *dir = store_install_path(ctx, ref.install_id);
        char *path = path_join(dir, ref.path);
        free(dir);
        if (fs_kind(path) != FS_FILE) {
            free(path);
            continue;
        }
        c->file[c->n] = i;
        COPY_STR_ARRAY(c->install[c->n], ref.install_id);
        c->read[c->n++] = (struct file_hash){.path = path, .expected = f->size};
    }
    hash_files(c->read, c->n, config_threads(&ctx->config));
}

/* staged replaced by a hard link to existing, through a name beside it: the staged copy
 * stays whenever the link cannot be made. */
static bool share(cdm_ctx *ctx, const char *existing, const char *staged)
{
    char *side = xasprintf("%s.cdm-shared", staged);
    bool done = false;
    if (fs_kind(side) == FS_NONE) {
        /* a failure's message is dropped with it: the copy serves as well */
        done = fs_hardlink(ctx, existing, side) == CDM_OK && fs_rename(ctx, side, staged) == CDM_OK;
        if (!done && fs_kind(side) != FS_NONE)
            fs_remove_file(ctx, side);
    }
    free(side);
    return done;
}

void dedup_staged(cdm_ctx *ctx, const char *tmp, const char *id, const struct db_file *files,
                  size_t n, struct cdm_install_result *result)
{
    struct candidates c;
    find_candidates(ctx, id, files, n, &c);
    for (size_t k = 0; k < c.n; k++) {
        const struct db_file *f = &files[c.file[k]];
        const struct file_hash *h = &c.read[k];
        bool same = h->done && h->size == f->size && !strcmp(h->hex, f->sha256);
        char *staged = path_join(tmp, f->path);
        if (same && share(ctx, h->path, staged)) {
            if (!result->shared_files)
                COPY_STR_ARRAY(result->shared_with, c.install[k]);
            else if (strcmp(result->shared_with, c.install[k]))
                result->shared_with_others = true;
            result->shared_files++;
            result->shared_bytes += f->size;
        }
        free(staged);
        free(c.read[k].path);
    }
    free(c.file);
    free(c.install);
    free(c.read);
}
