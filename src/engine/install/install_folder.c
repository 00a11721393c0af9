/*
 * cdm install DIR: a cuDNN already on the disk becomes an install. The folder stays the
 * user's: its cuDNN files are copied (hashed on the way) into staging, checked, and
 * committed as an archive's content is (journal_install_commit). Folders as users have them:
 *
 *   a Python environment's wheel: the venv, its site-packages, or the wheel's nvidia/cudnn
 *     itself; the dist-info beside it gives the version, the CUDA major and the platform,
 *     and every file copied must match its RECORD (pip wrote it);
 *   a CUDA-style folder: a toolkit with cuDNN copied in, an unpacked archive:
 *     include/cudnn*.h beside lib/, lib64/, lib/x64 or bin/ (bin/x64);
 *   the Windows installer's tree: {bin,include,lib}/<CUDA major.minor>/[x64].
 *
 * Only cuDNN's own files are taken (cudnn*.h, libcudnn*, cudnn*.dll, cudnn*.lib): a toolkit
 * holds much else. A folder that does not say its build number (the 4th part of 9.1.0.70)
 * or its CUDA major is told them (--build, --cuda). The record's sha256 is the hash of the
 * list of files and their hashes, so the same folder again is the same install.
 */
#include "folder.h"
#include "header.h"
#include "install.h"
#include "archive_walk.h"
#include "pyenv.h"
#include "store.h"
#include "store_paths.h"
#include "version.h"
#include "wheel.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "platform/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct copy_state {
    cdm_ctx *ctx;
    const struct folder *f;
    const char *dst;
    struct folder_file *files;
    size_t n;
    struct db_file *rows; /* what was written, strings owned */
    size_t rows_n;
    struct layout_scan scan;
    bool header_found;
    int major, minor, patch;
    uint64_t bytes;
};

static void keep_row(struct copy_state *c, const char *to, uint64_t size, const char *sha,
                     const char *link, int mode)
{
    c->rows = xrealloc(c->rows, (c->rows_n + 1) * sizeof(*c->rows));
    c->rows[c->rows_n++] = (struct db_file){xstrdup(to), size, sha ? xstrdup(sha) : NULL,
                                            link ? xstrdup(link) : NULL, mode};
}

/* A link of the folder to a name beside it that is taken too stays a link (libcudnn.so.9
 * -> libcudnn.so.9.1.0); NULL for any other, whose file is copied. malloc'd. */
static char *link_beside(struct copy_state *c, const char *path, const struct folder_file *t)
{
    enum link_kind kind;
    char *target = NULL;
    if (fs_kind(path) != FS_LINK || link_read(c->ctx, path, &kind, &target) || !target ||
        link_name_check(target)) {
        free(target);
        return NULL;
    }
    size_t folder = (size_t)(path_basename(t->from) - t->from);
    for (size_t i = 0; i < c->n; i++)
        if (!strncmp(c->files[i].from, t->from, folder) &&
            !strcmp(c->files[i].from + folder, target) && !strchr(target, '/'))
            return target;
    free(target);
    return NULL;
}

/* One file copied and hashed; a version header's text read on the way. */
static int copy_one(struct copy_state *c, const struct folder_file *t, struct sha256 *hash,
                    unsigned char *buf, size_t buf_size)
{
    char *src = path_join(c->f->root, t->from), *dst = path_join(c->dst, t->to);
    char *parent = path_dirname(dst), *link = link_beside(c, src, t);
    struct fs_reader *r = NULL;
    struct fs_file *w = NULL;
    struct strbuf header = STRBUF_INIT;
    uint64_t size = 0, done = 0;
    int mode = fs_file_mode(src);
    int rc = fs_mkdir_p(c->ctx, parent);
    if (!rc && link) {
        if (!(rc = fs_symlink(c->ctx, link, dst)))
            keep_row(c, t->to, 0, NULL, link, -1);
        goto out;
    }
    if (!rc)
        rc = fs_reader_open(c->ctx, src, &r, &size);
    if (!rc)
        rc = fs_file_create_read_only(c->ctx, dst, mode >= 0 && (mode & 0111), &w);
    sha256_reset(hash);
    while (!rc) {
        long long got = fs_reader_read(c->ctx, r, buf, buf_size);
        if (got <= 0) {
            rc = got < 0 ? CDM_EIO : CDM_OK;
            break;
        }
        sha256_update(hash, buf, (size_t)got);
        if (folder_is_version_header(t->to) && header.len < HEADER_KEEP)
            sb_addn(&header, (const char *)buf, (size_t)got);
        rc = fs_file_write(c->ctx, w, buf, (size_t)got);
        done += (uint64_t)got;
        if (!rc && c->bytes + done > c->ctx->config.max_total_size)
            rc = cdm_error_set(c->ctx, CDM_EARCHIVE,
                               "'%s' holds more than %llu bytes of cuDNN ([install] max_size); "
                               "nothing was installed",
                               c->f->root, c->ctx->config.max_total_size);
    }
    if (w)
        rc = rc ? (fs_file_abort(w), rc) : fs_file_close(c->ctx, w);
    char hex[65];
    sha256_finish_hex(hash, hex);
    int major, minor, patch;
    if (!rc && header.len && header.len < HEADER_KEEP &&
        cudnn_header_version(header.buf, header.len, &major, &minor, &patch)) {
        if (c->header_found && (major != c->major || minor != c->minor || patch != c->patch))
            rc = cdm_error_set(c->ctx, CDM_EARCHIVE,
                               "'%s': its headers disagree ('%s' says cuDNN %d.%d.%d, another "
                               "%d.%d.%d); nothing was installed",
                               c->f->root, t->from, major, minor, patch, c->major, c->minor,
                               c->patch);
        c->header_found = true, c->major = major, c->minor = minor, c->patch = patch;
    }
    if (!rc)
        keep_row(c, t->to, done, hex, NULL, fs_file_mode(dst));
    c->bytes += done;
out:
    fs_reader_close(r);
    sb_free(&header);
    free(link);
    free(parent);
    free(dst);
    free(src);
    return rc;
}

/* The rows whose file the folder must hold: cuDNN's below the record's prefix. */
static bool expected_row(const char *row, const void *arg)
{
    const struct folder *f = arg;
    return str_starts_with(row, f->record) && folder_is_cudnn_file(path_basename(row));
}

/* A package's folder (a venv's wheel, a conda environment's package): each file copied must
 * be the bytes its record gives (a file changed since it was installed is refused), and
 * each of the record's cuDNN files must have been taken. */
static int check_record(struct copy_state *c)
{
    const struct folder *f = c->f;
    /* the record names a file by where it is in the folder, not where it goes */
    struct db_file *as_found = xcalloc(c->rows_n + 1, sizeof(*as_found));
    for (size_t i = 0; i < c->rows_n; i++) {
        as_found[i] = c->rows[i];
        as_found[i].path = c->files[i].from;
    }
    const struct listed_check how = {.noun = "package",
                                     .file = f->root,
                                     .list = "record",
                                     .prefix = f->record,
                                     .links = true,
                                     .installed = true,
                                     .expected = expected_row,
                                     .arg = f};
    int rc = listed_check(c->ctx, &f->wheel.files, &how, as_found, c->rows_n);
    free(as_found);
    return rc;
}

static int row_order(const void *a, const void *b)
{
    return strcmp(((const struct db_file *)a)->path, ((const struct db_file *)b)->path);
}

/* The folder's hash: of each file's path and hash, in path order (a folder has no bytes of
 * its own; the same files again are the same install). */
static void tree_hash(struct copy_state *c, char out[65])
{
    struct db_file *sorted = xmalloc((c->rows_n + 1) * sizeof(*sorted));
    memcpy(sorted, c->rows, c->rows_n * sizeof(*sorted));
    qsort(sorted, c->rows_n, sizeof(*sorted), row_order);
    struct sha256 *h = sha256_new();
    for (size_t i = 0; i < c->rows_n; i++) {
        const struct db_file *r = &sorted[i];
        char *line = xasprintf("%s\t%s\n", r->path, r->sha256 ? r->sha256 : r->link_target);
        sha256_update(h, line, strlen(line));
        free(line);
    }
    sha256_finish_hex(h, out);
    sha256_free(h);
    free(sorted);
}

/* What the folder says of itself: the version (the headers', with the wheel's build
 * number or --build), the CUDA major (the wheel's name, the installer's folder, --cuda),
 * the platform (the wheel's tag, else this machine's kind of library). */
static int describe(struct copy_state *c, const struct cdm_install_request *req,
                    struct cdm_install_info *in)
{
    cdm_ctx *ctx = c->ctx;
    const struct folder *f = c->f;
    struct version v = {{c->major, c->minor, c->patch, req->build}, 4};
    int cuda = req->cuda;
    const char *platform = req->platform ? req->platform : fs_host_platform();
    if (f->has_wheel) {
        if (f->wheel.version.part[0] != c->major || f->wheel.version.part[1] != c->minor ||
            f->wheel.version.part[2] != c->patch)
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "'%s': its headers say cuDNN %d.%d.%d but the wheel's METADATA "
                                 "says %d.%d.%d.%d; nothing was installed: reinstall the wheel",
                                 f->root, c->major, c->minor, c->patch, f->wheel.version.part[0],
                                 f->wheel.version.part[1], f->wheel.version.part[2],
                                 f->wheel.version.part[3]);
        v = f->wheel.version, cuda = f->wheel.cuda_major, platform = f->wheel.platform;
    } else if (f->sub && !cuda) {
        cuda = atoi(f->sub);
    }
    if (!v.part[3])
        return cdm_error_set(ctx, CDM_EINVAL,
                             "%s '%s' holds cuDNN %d.%d.%d but does not say its build (the "
                             "fourth number, as in 9.1.0.70): give it with --build N (NVIDIA's "
                             "release notes list it, and so does 'pip index versions "
                             "nvidia-cudnn-cu12')",
                             f->what, f->root, c->major, c->minor, c->patch);
    if (!cuda)
        return cdm_error_set(ctx, CDM_EINVAL,
                             "%s '%s' does not say which CUDA major its cuDNN %d.%d.%d was built "
                             "for: give it with --cuda N",
                             f->what, f->root, c->major, c->minor, c->patch);
    const char *os = layout_os(&c->scan);
    if (!*os || !str_starts_with(platform, os))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "%s '%s' holds %s libraries, not %s ones; nothing was installed",
                             f->what, f->root, *os ? os : "no (or both kinds of)", platform);
    memset(in, 0, sizeof(*in));
    version_format(&v, in->version, sizeof(in->version));
    install_id_format(in->version, cuda, in->id, sizeof(in->id));
    in->cuda = cuda;
    copy_text(in->platform, sizeof(in->platform), platform);
    in->layout[0] = layout_for_version(&v);
    layout_result(&c->scan, in);
    copy_text(in->archive_name, sizeof(in->archive_name), f->root);
    copy_text(in->source, sizeof(in->source), "folder");
    tree_hash(c, in->sha256);
    in->installed_at = (int64_t)time(NULL);
    in->size = c->bytes;
    char *final = store_install_path(ctx, in->id);
    int rc = copy_path(ctx, in->path, sizeof(in->path), final);
    free(final);
    return rc;
}

/* Every file taken, copied into tmp. */
static int copy_all(struct copy_state *c)
{
    struct sha256 *hash = sha256_new();
    size_t buf_size = 256 * 1024;
    unsigned char *buf = xmalloc(buf_size);
    int rc = CDM_OK;
    for (size_t i = 0; i < c->n && !rc; i++) {
        if (cdm_interrupted(c->ctx))
            rc = cdm_error_set(c->ctx, CDM_EIO, "interrupted");
        else if (!(rc = copy_one(c, &c->files[i], hash, buf, buf_size)))
            layout_note(&c->scan, c->files[i].to);
    }
    free(buf);
    sha256_free(hash);
    if (!rc && !c->header_found)
        rc = cdm_error_set(c->ctx, CDM_EARCHIVE,
                           "%s '%s' has no cudnn_version.h or cudnn.h with the version macros; "
                           "nothing was installed",
                           c->f->what, c->f->root);
    return rc;
}

static void copy_state_free(struct copy_state *c)
{
    folder_files_free(c->files, c->n);
    for (size_t i = 0; i < c->rows_n; i++) {
        free((char *)c->rows[i].path);
        free((char *)c->rows[i].sha256);
        free((char *)c->rows[i].link_target);
    }
    free(c->rows);
}

/* An install of the id recorded already: the same files (nothing to do, *done), or the same
 * libraries from another form, or refused unless --force. */
static int against_recorded(cdm_ctx *ctx, const struct cdm_install_request *req,
                            const struct cdm_install_info *in, struct copy_state *c,
                            struct cdm_install_result *result, bool *done)
{
    struct cdm_install_info existing;
    if (req->force || db_install_get(ctx, in->id, &existing) != CDM_OK ||
        fs_kind(existing.path) != FS_DIR)
        return CDM_OK;
    *done = true;
    result->install = existing;
    if (!strcmp(existing.sha256, in->sha256))
        return CDM_OK;
    struct extract_result x = {.files = c->rows, .file_count = c->rows_n};
    int rc = install_same_libraries(ctx, &existing, c->f->root, "folder", &x);
    result->other_source = !rc;
    return rc;
}

int install_folder(cdm_ctx *ctx, const struct cdm_install_request *req,
                   struct cdm_install_result *result)
{
    memset(result, 0, sizeof(*result));
    struct folder f;
    struct copy_state c = {.ctx = ctx, .f = &f};
    struct cdm_install_info in;
    char *tmp = NULL;
    bool done = false;
    const char *host = req->platform ? req->platform : fs_host_platform();
    int rc = folder_locate(ctx, req->what, req->cuda, &f);
    if (rc || (rc = store_open(ctx, STORE_WRITE, RECOVER_INSTALLS)))
        goto out;
    folder_list(&f, &c.files, &c.n);
    tmp = store_staging_tmp(ctx, "folder");
    c.dst = tmp;
    if ((rc = fs_mkdir(ctx, tmp)) || (rc = copy_all(&c)) ||
        (f.has_wheel && (rc = check_record(&c))) || (rc = describe(&c, req, &in)))
        goto out;
    if (strcmp(in.platform, host)) {
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "'%s' is for %s but this store is for %s; pass --platform %s to fill "
                           "a store for one",
                           f.root, in.platform, host, in.platform);
        goto out;
    }
    if ((rc = against_recorded(ctx, req, &in, &c, result, &done)) || done)
        goto out;
    dedup_staged(ctx, tmp, in.id, c.rows, c.rows_n, result);
    if (!(rc = journal_install_commit(ctx, tmp, &in, c.rows, c.rows_n))) {
        result->install = in;
        result->changed = true;
    }
out:
    if (tmp && fs_kind(tmp) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, tmp);
        error_restore(ctx, &saved);
    }
    free(tmp);
    copy_state_free(&c);
    folder_free(&f);
    return rc;
}
