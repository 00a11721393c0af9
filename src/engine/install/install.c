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
#include "db_parts.h"
#include "fetch.h"
#include "install.h"
#include "install_parts.h"
#include "lock.h"
#include "oci.h"
#include "project.h"
#include "official.h"
#include "source_kinds.h"
#include "sources.h"
#include "store.h"
#include "store_paths.h"
#include "unpack.h"
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
static int gather_parts(cdm_ctx *ctx, const struct cdm_install_request *req, const char *archive,
                        const struct source *src, const struct checksums *sums,
                        const struct cdm_install_info *in, struct parts *parts,
                        struct cdm_install_result *result);
static int check_content(cdm_ctx *ctx, const char *archive, const struct source *src,
                         const struct extract_result *x);
static void describe_parts(const struct parts *parts, struct cdm_install_info *in);
static void links_only(cdm_ctx *ctx, const char *archive, const struct cdm_install_info *existing);
static int compare_other_file(cdm_ctx *ctx, const char *archive, const struct source *src,
                              const struct checksums *sums, const struct cdm_install_info *existing,
                              char **tmp, struct cdm_install_result *result);
static int describe_name(cdm_ctx *ctx, const char *archive, const char *file_name,
                         const struct archive_name *name, struct cdm_install_info *in);
static void describe_content(const struct archive_name *name, const struct extract_result *x,
                             struct cdm_install_info *in);
static int commit_new(cdm_ctx *ctx, const char *tmp, const struct source *src,
                      const struct parts *parts, bool official, const struct extract_result *x,
                      struct cdm_install_info *in, struct cdm_install_result *result);

/* describe_name, and an install for this machine (no --platform) held to its GPU and
 * driver (--force goes past them). */
static int describe_for_here(cdm_ctx *ctx, const struct cdm_install_request *req,
                             const char *archive, const char *file_name,
                             const struct archive_name *name, struct cdm_install_info *in)
{
    int rc = describe_name(ctx, archive, file_name, name, in);
    if (!rc && !req->platform)
        rc = cdm_machine_check_install(ctx, in, req->force, "installing");
    return rc;
}

/* Bytes had ahead of a download by range (a zip's directory and headers) that the whole
 * file contradicts. A kind that said what it is from them (a wheel's dist-info) is
 * refused, its whole download kept so that the next run reads the file alone (false, the
 * error in ctx); NVIDIA's zip, named by its file name, is unpacked again from the whole
 * file, which is said (true). */
static bool unpack_again_after_ahead(cdm_ctx *ctx, const struct source *src, struct fetched *dl)
{
    if (src->kind->check) {
        dl->keep = true;
        cdm_error_set(ctx, CDM_ECHECKSUM,
                      "cannot install '%s': the server sent other bytes of it by range than "
                      "in the whole file; nothing was installed; the whole download is kept "
                      "in '%s': run the command again to install from it",
                      dl->name, dl->hold.partial);
        return false;
    }
    cdm_note(ctx,
             "the server sent other bytes of '%s' by range than in the whole file; unpacking "
             "it again from the whole file",
             dl->name);
    return true;
}

/* The file unpacked into tmp: with the parts kept before it, or alone; a download still
 * arriving read as it comes, where its kind is read in one pass (NVIDIA's .tar.xz and
 * .zip, a wheel), and held whole and checked before the install goes on. */
static int unpack_new(cdm_ctx *ctx, const char *archive, const struct source *src,
                      const struct checksums *sums, struct parts *parts, struct fetched *dl,
                      const char *tmp, struct extract_result *x)
{
    /* (a wheel's check holds its files to the RECORD read before, not to the file) */
    bool one_pass = !src->kind->parts && !src->kind->payload && !src->kind->window;
    const struct arriving *arriving = one_pass ? fetch_arriving(dl) : NULL;
    int rc = arriving ? CDM_OK : fetch_whole(ctx, dl);
    if (!rc)
        rc = src->kind->parts ? parts_unpack(ctx, parts, archive, src, sums, tmp, x)
                              : install_unpack(ctx, archive, tmp, src, sums, NULL, arriving, x);
    if (!arriving)
        return rc ? rc : fetch_whole(ctx, dl);
    if (rc && ctx->interrupted)
        return rc;
    /* the bytes read were wrong or cut short: the download's own verdict says it best */
    int whole = fetch_whole(ctx, dl);
    if (whole)
        return whole;
    bool agrees = fetch_ahead_agrees(ctx, dl);
    if (!rc && agrees)
        return CDM_OK;
    if (!agrees && !unpack_again_after_ahead(ctx, src, dl))
        return cdm_error_code(ctx);
    /* The download came whole and matched where the bytes read did not (bytes kept from an
     * earlier run, found wrong and fetched again meanwhile), or what was read ahead of it
     * was not the file's. Once more, from the whole file. */
    extract_result_free(x);
    if ((rc = fs_remove_tree(ctx, tmp)) || (rc = fs_mkdir(ctx, tmp)))
        return rc;
    return install_unpack(ctx, archive, tmp, src, sums, NULL, NULL, x);
}

/* What the file says of itself. One still arriving is read as it comes (a wheel's
 * dist-info, asked for ahead); where that fails, once more from the whole file once the
 * download is whole and checked (bytes had by range that were not the file's, say), whose
 * verdict stands. */
static int open_source(cdm_ctx *ctx, const char *archive, const char *file_name, struct fetched *dl,
                       struct source *src)
{
    const struct arriving *arriving = fetch_arriving(dl);
    int rc = source_open(ctx, archive, file_name, arriving, src);
    if (!rc || !arriving || ctx->interrupted)
        return rc;
    source_free(src);
    return (rc = fetch_settle(ctx, dl)) ? rc : source_open(ctx, archive, file_name, NULL, src);
}

/* The install itself, without the licence's record (cdm_install, below). */
static int install_request(cdm_ctx *ctx, const struct cdm_install_request *req,
                           struct cdm_install_result *result)
{
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
    struct parts parts;
    memset(&parts, 0, sizeof(parts));
    /* before the store lock: a download takes long, and other commands go on meanwhile */
    int rc = resolve_archive(ctx, req, platform, &archive, &dl);
    if (!rc && dl.installed) {
        result->install = dl.existing; /* nothing downloaded, nothing to do */
        result->by_version = true;
        goto out;
    }
    if (rc || (rc = store_open(ctx, STORE_WRITE, RECOVER_INSTALLS)))
        goto out;
    result->downloaded = dl.path && dl.hold.file;

    /* a download's .partial file says nothing: the manifest gave the name */
    const char *file_name = dl.path ? dl.name : path_basename(archive);
    if ((rc = open_source(ctx, archive, file_name, &dl, &src)))
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
    if ((rc = describe_for_here(ctx, req, archive, file_name, &name, &in)))
        goto out;
    struct cdm_install_info existing;
    bool done = false, compare = false;
    if (db_install_get(ctx, in.id, &existing) == CDM_OK &&
        ((rc = fetch_whole(ctx, &dl)) ||
         (rc = against_existing(ctx, req, archive, &dl, &sums, &existing, &done, &compare)) ||
         done)) {
        result->install = existing;
        goto out;
    }

    if (compare) {
        rc = compare_other_file(ctx, archive, &src, &sums, &existing, &tmp, result);
        goto out;
    }
    /* a part of an install that comes as several packages: complete with the parts kept
     * before, or kept itself */
    if (src.kind->parts &&
        ((rc = gather_parts(ctx, req, archive, &src, &sums, &in, &parts, result)) || result->kept))
        goto out;
    tmp = store_staging_tmp(ctx, in.id);
    if ((rc = fs_mkdir(ctx, tmp)) ||
        (rc = unpack_new(ctx, archive, &src, &sums, &parts, &dl, tmp, &x)) ||
        (rc = check_content(ctx, archive, &src, &x)))
        goto out;
    rc = commit_new(ctx, tmp, &src, &parts, dl.official, &x, &in, result);
out:
    drop_unfinished(ctx, rc, archive, tmp);
    extract_result_free(&x);
    checksums_free(&sums);
    source_free(&src);
    parts_free(&parts);
    fetch_done(ctx, &dl);
    free(tmp);
    free(archive);
    return rc;
}

int cdm_install(cdm_ctx *ctx, const struct cdm_install_request *req,
                struct cdm_install_result *result)
{
    memset(result, 0, sizeof(*result));
    int rc = license_check(ctx, req);
    if (!rc)
        rc = install_request(ctx, req, result);
    if (!rc && !result->kept) /* a kept part is no install yet: its completion records it */
        rc = license_record(ctx, req, result->install.id);
    return rc;
}

/* The checked tree in tmp recorded as the install in, described by its content; official:
 * its hash was checked against NVIDIA's own manifest, fetched over TLS. */
static int commit_new(cdm_ctx *ctx, const char *tmp, const struct source *src,
                      const struct parts *parts, bool official, const struct extract_result *x,
                      struct cdm_install_info *in, struct cdm_install_result *result)
{
    describe_content(&src->name, x, in);
    describe_parts(parts, in);
    copy_text(in->source, sizeof(in->source), src->kind->name);
    COPY_STR_ARRAY(result->unpacked_by, x->unpacked_by);
    in->official = in->official || official;
    dedup_staged(ctx, tmp, in->id, x->files, x->file_count, result);
    int rc = journal_install_commit(ctx, tmp, in, x->files, x->file_count);
    if (rc)
        return rc;
    result->install = *in;
    result->changed = true;
    result->took_together = src->kind->parts && parts->took_together;
    /* the kept parts are in it now */
    return src->kind->parts ? db_parts_drop(ctx, in->id, NULL) : CDM_OK;
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

/* An artifact of a registry (oci://...), pulled. Inside a project with a cudnn.lock, its
 * layer must be the archive the lock names for platform: checked on the manifest, before
 * a byte of the archive is downloaded. */
static int pull_artifact(cdm_ctx *ctx, const struct cdm_install_request *req, const char *platform,
                         char **archive, struct fetched *dl)
{
    struct cdm_install_request pinned = *req;
    struct lock_archive locked;
    char *project = req->sha256 ? NULL : project_nearest(ctx, NULL);
    char *cwd = project ? NULL : fs_getcwd();
    int rc = req->sha256 ? CDM_ENOTFOUND
                         : lock_archive_for(ctx, project ? project : cwd, platform, &locked);
    free(project);
    free(cwd);
    if (rc == CDM_OK)
        pinned.sha256 = locked.sha256;
    else if (rc != CDM_ENOTFOUND)
        return rc;
    rc = fetch_for_install(ctx, &pinned, platform, dl);
    if (!rc && !dl->installed)
        *archive = xstrdup(dl->path);
    return rc;
}

/* The archive to install: a file named, else the install the store has, else found by
 * version in [install] sources, else downloaded from [fetch] base (dl is then filled). */
static int resolve_archive(cdm_ctx *ctx, const struct cdm_install_request *req,
                           const char *platform, char **archive, struct fetched *dl)
{
    if (oci_is_ref(req->what))
        return pull_artifact(ctx, req, platform, archive, dl);
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

/* A part that does not complete the install with the parts kept before is kept, its hash
 * checked against what was given for it (--sha256, a .sha256 beside it). */
static int gather_parts(cdm_ctx *ctx, const struct cdm_install_request *req, const char *archive,
                        const struct source *src, const struct checksums *sums,
                        const struct cdm_install_info *in, struct parts *parts,
                        struct cdm_install_result *result)
{
    int rc = parts_gather(ctx, src, in->id, req->together, parts);
    if (rc || parts->complete)
        return rc;
    char sha[65];
    uint64_t size;
    if ((rc = archive_hash(ctx, archive, sha, &size)) ||
        (rc = checksums_check(ctx, sums, archive, sha)) ||
        (rc = parts_keep(ctx, archive, src, in->id, sha, parts, result->completes,
                         sizeof(result->completes))))
        return rc;
    result->kept = true;
    result->install = *in;
    copy_text(result->install.source, sizeof(result->install.source), src->kind->name);
    return CDM_OK;
}

/* A Debian package that holds only the development links (libcudnn.so -> libcudnn.so.9),
 * given for an install made without them: the install stays as it was recorded. */
static void links_only(cdm_ctx *ctx, const char *archive, const struct cdm_install_info *existing)
{
    char *link = path_join(existing->path, "lib/libcudnn.so");
    if (fs_kind(link) == FS_NONE)
        cdm_note(ctx,
                 "'%s' holds only the development links (libcudnn.so), which %s was installed "
                 "without; a recorded install is not changed: to have them, install all the "
                 "version's packages together with --force",
                 archive, existing->id);
    free(link);
}

/* A second file of an installed id (against_existing's *compare), unpacked into staging
 * (*tmp, removed by the caller) and compared with the install: the same library bytes are
 * the same install; a Debian or RPM part without libraries (the headers) is compared file
 * by file, one of links only not at all. */
static int compare_other_file(cdm_ctx *ctx, const char *archive, const struct source *src,
                              const struct checksums *sums, const struct cdm_install_info *existing,
                              char **tmp, struct cdm_install_result *result)
{
    bool part = src->kind->parts, libraries = !part || src->pkg.libraries;
    int rc = CDM_OK;
    if (part && !libraries && !src->pkg.headers) {
        links_only(ctx, archive, existing);
        result->install = *existing, result->other_source = true;
        return CDM_OK;
    }
    struct extract_result x = {0}, recorded = {0};
    *tmp = store_staging_tmp(ctx, existing->id);
    if ((rc = fs_mkdir(ctx, *tmp)))
        return rc;
    /* a part's links may point to the install's libraries */
    if (!libraries)
        rc = parts_recorded_libraries(ctx, existing, &recorded);
    if (!rc)
        rc = install_unpack(ctx, archive, *tmp, src, sums, &recorded, NULL, &x);
    if (!rc && !part) /* a part alone lacks the headers or the libraries */
        rc = check_content(ctx, archive, src, &x);
    if (!rc)
        rc = libraries ? install_same_libraries(ctx, existing, archive, src->kind->name, &x)
                       : parts_same_files(ctx, existing, archive, &x);
    if (!rc)
        result->install = *existing, result->other_source = true;
    extract_result_free(&x);
    extract_result_free(&recorded);
    return rc;
}

/* What the extracted content says must agree with what the file says of itself (the
 * archive's name, the wheel's dist-info). */
static int check_content(cdm_ctx *ctx, const char *archive, const struct source *src,
                         const struct extract_result *x)
{
    const struct archive_name *name = &src->name;
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

/* An install of several packages is recorded as from its runtime package's file, which
 * holds the libraries: the same file again is then "installed already". */
static void describe_parts(const struct parts *parts, struct cdm_install_info *in)
{
    const struct kept_part *runtime = parts->runtime;
    if (!runtime)
        return; /* the file given holds the libraries */
    /* its hash and size are the content's already: the runtime is unpacked first */
    copy_text(in->archive_name, sizeof(in->archive_name), path_basename(runtime->path));
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
