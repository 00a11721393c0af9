/*
 * cdm install: a file of any form cuDNN comes in (source.c: NVIDIA's archive, its wheel, a
 * conda package), a folder (install_folder.c), or a version (the store's, the source
 * folders', or downloaded) becomes a folder of the store, all or nothing: unpacked into
 * .staging/<id>.<pid>.tmp and checked against what the file says of itself and against its
 * own hashes, then committed (commit.c: renamed into place and recorded, crash-safe). The
 * steps read top to bottom in cdm_install.
 */
#include "cdm_archive.h"
#include "checksum.h"
#include "db.h"
#include "fetch.h"
#include "install.h"
#include "official.h"
#include "source.h"
#include "sources.h"
#include "store.h"
#include "store_paths.h"
#include "version.h"
#include "platform/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int resolve_archive(cdm_ctx *ctx, const struct cdm_install_request *req,
                           const char *platform, char **archive, struct fetched *dl);
static int fits_request(cdm_ctx *ctx, const struct cdm_install_request *req, const char *archive,
                        const struct archive_name *name, const char *platform);
static void drop_unfinished(cdm_ctx *ctx, int rc, const char *archive, const char *tmp);
static int against_existing(cdm_ctx *ctx, const struct cdm_install_request *req,
                            const char *archive, const struct fetched *dl,
                            const struct checksums *sums, const struct cdm_install_info *existing,
                            bool *done, bool *compare);
static int extract(cdm_ctx *ctx, const char *archive, const char *tmp, const struct source *src,
                   const struct checksums *sums, struct extract_result *x);
static int check_content(cdm_ctx *ctx, const char *archive, const struct source *src,
                         const struct extract_result *x);
static int describe_name(cdm_ctx *ctx, const char *archive, const char *file_name,
                         const struct archive_name *name, struct cdm_install_info *in);
static void describe_content(const struct archive_name *name, const struct extract_result *x,
                             struct cdm_install_info *in);

int cdm_install(cdm_ctx *ctx, const struct cdm_install_request *req,
                struct cdm_install_result *result)
{
    memset(result, 0, sizeof(*result));
    if (fs_is_dir_followed(req->what)) /* a cuDNN already on the disk */
        return install_folder(ctx, req, result);
    const char *platform = req->platform ? req->platform : fs_host_platform();
    char *archive = NULL, *tmp = NULL;
    struct extract_result x = {0};
    struct checksums sums = {0};
    struct source src;
    memset(&src, 0, sizeof(src));
    struct fetched dl;
    memset(&dl, 0, sizeof(dl));
    /* before the store lock: a download takes long, and other commands go on meanwhile */
    int rc = resolve_archive(ctx, req, platform, &archive, &dl);
    if (!rc && dl.installed) {
        result->install = dl.existing; /* nothing downloaded, nothing to do */
        result->by_version = true;
        goto out;
    }
    if (rc || (rc = store_open_write(ctx, RECOVER_INSTALLS)))
        goto out;
    result->downloaded = dl.path && dl.hold.file;

    /* a download's .partial file says nothing: the manifest gave the name */
    const char *file_name = dl.path ? dl.name : path_basename(archive);
    if ((rc = source_open(ctx, archive, file_name, &src)))
        goto out;
    const struct archive_name name = src.name;
    if ((rc = fits_request(ctx, req, archive, &name, platform)) ||
        (rc = checksums_find(ctx, archive, req->sha256, &sums)))
        goto out;
    if (dl.path) {
        char *source = xasprintf("the %s '%s'", dl.source_noun, dl.source);
        checksums_add(&sums, dl.sha256, source);
        free(source);
    }

    struct cdm_install_info in;
    if ((rc = describe_name(ctx, archive, file_name, &name, &in)))
        goto out;
    struct cdm_install_info existing;
    bool done = false, compare = false;
    if (db_install_get(ctx, in.id, &existing) == CDM_OK &&
        ((rc = against_existing(ctx, req, archive, &dl, &sums, &existing, &done, &compare)) ||
         done)) {
        result->install = existing;
        goto out;
    }

    tmp = store_staging_tmp(ctx, in.id);
    if ((rc = fs_mkdir(ctx, tmp)))
        goto out;
    if ((rc = extract(ctx, archive, tmp, &src, &sums, &x)) ||
        (rc = check_content(ctx, archive, &src, &x)))
        goto out;
    if (compare) {
        if (!(rc = install_same_libraries(ctx, &existing, archive, src.kind->name, &x)))
            result->install = existing, result->other_source = true;
        goto out;
    }
    describe_content(&name, &x, &in);
    copy_text(in.source, sizeof(in.source), src.kind->name);
    COPY_STR_ARRAY(result->unpacked_by, x.unpacked_by);
    /* the hash was checked against NVIDIA's own manifest, fetched over TLS */
    in.official = in.official || dl.official;
    if ((rc = install_commit(ctx, tmp, &in, x.files, x.file_count)))
        goto out;
    result->install = in;
    result->changed = true;
out:
    drop_unfinished(ctx, rc, archive, tmp);
    extract_result_free(&x);
    checksums_free(&sums);
    source_free(&src);
    fetch_done(ctx, &dl);
    free(tmp);
    free(archive);
    return rc;
}

/* What an install that stopped short unpacked is removed; an interrupt says where it was. */
static void drop_unfinished(cdm_ctx *ctx, int rc, const char *archive, const char *tmp)
{
    if (!tmp || fs_kind(tmp) == FS_NONE)
        return;
    struct saved_error saved = error_save(ctx);
    bool removed = fs_remove_tree(ctx, tmp) == CDM_OK;
    error_restore(ctx, &saved);
    if (rc && ctx->interrupted)
        cdm_error_set(ctx, rc, "install of '%s' interrupted; %s its unfinished files in '%s'",
                      archive, removed ? "removed" : "could not remove (run 'cdm gc')", tmp);
}

/* The file is of this store's platform, and of the CUDA major --cuda asks for. */
static int fits_request(cdm_ctx *ctx, const struct cdm_install_request *req, const char *archive,
                        const struct archive_name *name, const char *platform)
{
    if (strcmp(name->platform, platform))
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "'%s' is for %s but this store is for %s; install it on a %s "
                             "machine, or pass --platform %s to fill a store for one",
                             archive, name->platform, platform, name->platform, name->platform);
    if (req->cuda && req->cuda != name->cuda_major)
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' is a CUDA %d build but --cuda says %d", archive,
                             name->cuda_major, req->cuda);
    return CDM_OK;
}

/* Local first: a version the store has for this platform, its folder in place, needs no
 * file and no network (--force asks for the file again). CDM_ENOTFOUND when there is none;
 * an error when the spec matches several (two CUDA variants). */
static int installed_already(cdm_ctx *ctx, const struct cdm_install_request *req,
                             const char *platform, struct cdm_install_info *out)
{
    if (req->force)
        return CDM_ENOTFOUND;
    int rc = cdm_resolve(ctx, req->what, req->cuda, out);
    if (rc == CDM_EAMBIGUOUS)
        return rc;
    /* --sha256 asks for one file: an install from another is not it */
    if (rc || strcmp(out->platform, platform) || out->state != CDM_INSTALL_OK ||
        fs_kind(out->path) != FS_DIR ||
        (req->sha256 && (strlen(req->sha256) != strlen(out->sha256) ||
                         !str_starts_with_icase(req->sha256, out->sha256))))
        return CDM_ENOTFOUND;
    return CDM_OK;
}

/* The archive to install: a file named, else the install the store has, else found by
 * version in [install] sources, else downloaded from [fetch] base (dl is then filled). */
static int resolve_archive(cdm_ctx *ctx, const struct cdm_install_request *req,
                           const char *platform, char **archive, struct fetched *dl)
{
    enum fs_kind kind = fs_kind(req->what);
    if (kind == FS_FILE || kind == FS_LINK) {
        *archive = xstrdup(req->what);
        return CDM_OK;
    }
    struct version_spec spec;
    if (kind != FS_NONE || !version_spec_parse(req->what, &spec))
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot install '%s': no such archive file, and not a version "
                             "such as 8.8.0",
                             req->what);
    if (req->cuda)
        spec.cuda = req->cuda;
    int rc = installed_already(ctx, req, platform, &dl->existing);
    if (rc != CDM_ENOTFOUND) {
        dl->installed = rc == CDM_OK;
        return rc;
    }
    rc = sources_find(ctx, &spec, platform, req->what, archive);
    if (rc != CDM_ENOTFOUND)
        return rc;
    struct saved_error in_sources = error_save(ctx);
    rc = fetch_for_install(ctx, req, platform, dl);
    if (dl->off) {
        in_sources.code = rc;
        error_restore(ctx, &in_sources);
        return cdm_error_append(ctx, rc, " (downloads are off: [fetch] base)");
    }
    free(in_sources.message);
    if (!rc && !dl->installed)
        *archive = xstrdup(dl->path);
    return rc;
}

/* An install of the same id is recorded. The same file again is not an error, and costs
 * no extraction (*done); --force with it reinstalls, the way to repair a damaged folder.
 * A file of other bytes has its libraries compared with the install's once unpacked
 * (*compare: one id, one set of bytes), or replaces it with --force. */
static int against_existing(cdm_ctx *ctx, const struct cdm_install_request *req,
                            const char *archive, const struct fetched *dl,
                            const struct checksums *sums, const struct cdm_install_info *existing,
                            bool *done, bool *compare)
{
    char sha[65];
    uint64_t size;
    int rc;
    if (dl->hold.file) /* downloaded and checked already: no second read to hash it */
        memcpy(sha, dl->sha256, sizeof(sha));
    else if ((rc = archive_hash(ctx, archive, sha, &size)) ||
             (rc = checksums_check(ctx, sums, archive, sha)))
        return rc;
    bool same_file = !strcmp(sha, existing->sha256);
    bool present = fs_kind(existing->path) == FS_DIR;
    if (req->force || (same_file && !present)) /* recorded, its folder gone: put it back */
        return CDM_OK;
    if (same_file) {
        *done = true;
        return CDM_OK;
    }
    if (!present)
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "%s is recorded from another file ('%s', sha256 %.12s...) and its "
                             "folder is gone; pass --force to install it from '%s'",
                             existing->id, existing->archive_name, existing->sha256, archive);
    *compare = true;
    return CDM_OK;
}

/* A package whose tar lies inside it (a .conda's pkg-*.tar.zst, copied out to payload):
 * the tar unpacked; the hashes that apply are the package file's, read once more. */
static int extract_payload(cdm_ctx *ctx, const char *archive, const char *payload, const char *tmp,
                           const struct checksums *sums, const struct extract_limits *limits,
                           struct extract_result *x)
{
    int rc = archive_extract(ctx, payload, tmp, limits, x);
    if (!rc && !(rc = archive_hash(ctx, archive, x->sha256, &x->archive_size)))
        rc = checksums_check(ctx, sums, archive, x->sha256);
    return rc;
}

/* The file itself unpacked, hashed on the way. An archive that cannot be read while a hash
 * was expected is most likely not the file meant: that is said first. */
static int extract_file(cdm_ctx *ctx, const char *archive, const char *tmp,
                        const struct checksums *sums, const struct extract_limits *limits,
                        struct extract_result *x)
{
    int rc = archive_extract(ctx, archive, tmp, limits, x);
    if (rc == CDM_EARCHIVE && sums->count) {
        char sha[65];
        uint64_t size;
        struct saved_error saved = error_save(ctx);
        int mismatch = archive_hash(ctx, archive, sha, &size) == CDM_OK
                           ? checksums_check(ctx, sums, archive, sha)
                           : CDM_OK;
        if (!mismatch)
            return error_restore(ctx, &saved);
        free(saved.message);
        return mismatch;
    }
    return rc ? rc : checksums_check(ctx, sums, archive, x->sha256);
}

/* Unpack into tmp, checking every hash that applies on the way; a package whose tar lies
 * inside it has that tar copied out beside tmp first (removed after). */
static int extract(cdm_ctx *ctx, const char *archive, const char *tmp, const struct source *src,
                   const struct checksums *sums, struct extract_result *x)
{
    struct extract_limits limits = {ctx->config.max_total_size, ctx->config.max_entries,
                                    config_threads(&ctx->config), ctx->config.thread_memory,
                                    src->select};
    if (ctx->options.progress) /* the phase the progress line below is about */
        cdm_note(ctx, "unpacking and checking '%s'", path_basename(archive));
    char *dir = src->kind->payload ? xasprintf("%s.payload", tmp) : NULL, *payload = NULL;
    int rc = CDM_OK;
    if (dir && !(rc = fs_mkdir(ctx, dir)))
        rc = src->kind->payload(ctx, archive, dir, &payload);
    if (!rc)
        rc = payload ? extract_payload(ctx, archive, payload, tmp, sums, &limits, x)
                     : extract_file(ctx, archive, tmp, sums, &limits, x);
    if (dir && fs_kind(dir) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, dir);
        error_restore(ctx, &saved);
    }
    free(payload);
    free(dir);
    return rc;
}
/* What the extracted content says must agree with what the file says of itself (the
 * archive's name, the wheel's dist-info), and with the form's own hashes. */
static int check_content(cdm_ctx *ctx, const char *archive, const struct source *src,
                         const struct extract_result *x)
{
    const struct archive_name *name = &src->name;
    if (src->kind->check) {
        int rc = src->kind->check(ctx, archive, src, x);
        if (rc)
            return rc;
    }
    if (!x->header_found)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "'%s' has no include/cudnn_version.h or include/cudnn.h with the "
                             "version macros; is it a cuDNN archive?",
                             archive);
    if (x->major != name->version.part[0] || x->minor != name->version.part[1] ||
        x->patch != name->version.part[2])
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "'%s': its %s says cuDNN %d.%d.%d but its header says %d.%d.%d; "
                             "the file was renamed or repacked, get the original %s",
                             archive, src->kind->says, name->version.part[0], name->version.part[1],
                             name->version.part[2], x->major, x->minor, x->patch, src->kind->name);
    const char *os = layout_os(&x->scan);
    if (!*os)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "'%s' holds no cuDNN libraries (.dll or .so), or both kinds; "
                             "is it a cuDNN archive?",
                             archive);
    if (!str_starts_with(name->platform, os))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "'%s': its name says %s but it holds %s libraries; get the "
                             "original archive",
                             archive, name->platform, os);
    return CDM_OK;
}

/* The record of the install as far as the archive's name (file_name, NVIDIA's) tells it:
 * id, version, where it goes. Fails, before anything is written, when a name or path does
 * not fit the record. */
static int describe_name(cdm_ctx *ctx, const char *archive, const char *file_name,
                         const struct archive_name *name, struct cdm_install_info *in)
{
    memset(in, 0, sizeof(*in));
    if (!version_format(&name->version, in->version, sizeof(in->version)) ||
        !install_id_format(in->version, name->cuda_major, in->id, sizeof(in->id)))
        return cdm_error_set(ctx, CDM_EARCHIVE, "cannot install '%s': its version is too long",
                             archive);
    in->cuda = name->cuda_major;
    COPY_STR_ARRAY(in->platform, name->platform);
    if (!copy_str(in->archive_name, sizeof(in->archive_name), file_name))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install '%s': its file name is longer than %zu bytes; "
                             "keep NVIDIA's file name",
                             archive, sizeof(in->archive_name) - 1);
    char *path = store_install_path(ctx, in->id);
    int rc = copy_path(ctx, in->path, sizeof(in->path), path);
    free(path);
    return rc;
}

/* The rest of the record, from the extracted content. */
static void describe_content(const struct archive_name *name, const struct extract_result *x,
                             struct cdm_install_info *in)
{
    /* The content decides: an old cuda/ top folder, else the version's own layout. */
    char layout = !strcmp(x->top, "cuda") ? 'A' : layout_for_version(&name->version);
    if (layout == 'A' && strcmp(x->top, "cuda"))
        layout = 'B';
    in->layout[0] = layout;
    layout_result(&x->scan, in);
    in->archive_size = x->archive_size;
    COPY_STR_ARRAY(in->sha256, x->sha256);
    in->official = official_archive_for(x->sha256) != NULL;
    in->installed_at = (int64_t)time(NULL);
    in->size = x->extracted_size;
}
