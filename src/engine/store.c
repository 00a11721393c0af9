/*
 * The store: one folder per install below the root, the index beside them, and
 * .staging/ for work in progress. An install is all or nothing:
 *
 *   extract into .staging/<id>.<pid>.tmp, check it, rename it to .staging/<id>.ready,
 *   record the install as "pending", move any old folder aside (.staging/<id>.old),
 *   rename .ready to <root>/<id>, mark the record "ok", delete the old folder.
 *
 * A crash at any point leaves a state that the next writer rolls forward (a pending record
 * with its .ready folder) or cleans up (everything else in .staging), under the store lock
 * (recover.c).
 */
#include "cdm_archive.h"
#include "recover.h"
#include "store.h"
#include "sources.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "official.h"
#include "platform/sha256.h"
#include "version.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int recover_once(cdm_ctx *ctx)
{
    if (ctx->recovered)
        return CDM_OK;
    unsigned done = 0;
    int rc = recover_interrupted(ctx, &done);
    if (!rc)
        ctx->recovered = true;
    if (done)
        cdm_warn(ctx, "cleaned up %u leftover(s) of interrupted work in '%s'", done, ctx->root);
    return rc;
}

int store_open(cdm_ctx *ctx, bool for_writing)
{
    if (ctx->db && (!for_writing || ctx->lock))
        return CDM_OK;
    if (!for_writing)
        return db_open_read(ctx);
    db_close(ctx); /* opened for reading before: open again under the lock */
    int rc;
    char *db_path = store_index_path(ctx);
    char *staging = store_staging_dir(ctx);
    char *lock_path = store_lock_path(ctx);
    if (!(rc = fs_mkdir_p(ctx, ctx->root)) && !(rc = fs_mkdir(ctx, staging)) &&
        !(rc = fs_lock(ctx, lock_path, &ctx->lock)) && !(rc = db_open(ctx, db_path)))
        rc = recover_once(ctx);
    free(lock_path);
    free(staging);
    free(db_path);
    return rc;
}

/* Records of project folders that no longer exist: the history stays, and a "gone"
 * generation says the project no longer uses anything. */
static int drop_gone(cdm_ctx *ctx, unsigned *dropped)
{
    struct db_generation_ref *v = NULL;
    size_t n = 0;
    int rc = db_generation_current_links(ctx, &v, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!cdm_project_gone(v[i].project))
            continue;
        rc = db_generation_add(ctx, v[i].project, NULL, "gone", v[i].link_name, "ok", NULL);
        if (!rc)
            (*dropped)++;
    }
    db_generation_refs_free(v, n);
    return rc;
}

int cdm_gc(cdm_ctx *ctx, unsigned *removed)
{
    *removed = 0;
    ctx->recovered = true; /* gc recovers below itself, to count what it did */
    int rc = store_open(ctx, true);
    if (rc || (rc = recover_interrupted(ctx, removed)))
        return rc;
    return drop_gone(ctx, removed);
}

int cdm_list(cdm_ctx *ctx, struct cdm_install_info **out, size_t *count)
{
    int rc = store_open(ctx, false);
    return rc ? rc : db_install_list(ctx, out, count);
}

int cdm_projects_using(cdm_ctx *ctx, const char *install_id, char ***projects)
{
    int rc = store_open(ctx, false);
    return rc ? rc : db_projects_using(ctx, install_id, projects);
}

int cdm_resolve(cdm_ctx *ctx, const char *spec_text, int cuda, struct cdm_install_info *out)
{
    struct version_spec spec;
    if (!version_spec_parse(spec_text, &spec))
        return cdm_error_set(ctx, CDM_EINVAL,
                             "'%s' is not a version; give one such as 8.8, 8.8.0.121, "
                             "8.8.0.121-cuda11 or latest",
                             spec_text);
    if (cuda && spec.cuda && cuda != spec.cuda)
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' names cuda%d but --cuda says %d", spec_text,
                             spec.cuda, cuda);
    if (cuda)
        spec.cuda = cuda;
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    int rc = cdm_list(ctx, &all, &n);
    if (rc)
        return rc;
    /* The newest matching version wins; its CUDA variants must be told apart. */
    const struct cdm_install_info *best = NULL;
    struct version_pick pick = VERSION_PICK_INIT;
    for (size_t i = 0; i < n; i++) {
        struct version v;
        if (version_parse(all[i].version, &v) && version_spec_matches(&spec, &v, all[i].cuda) &&
            version_pick_offer(&pick, &v, all[i].id))
            best = &all[i];
    }
    if (!best && spec.cuda)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cuDNN %s for CUDA %d is not installed; run 'cdm install %s --cuda "
                           "%d' (see 'cdm list')",
                           spec_text, spec.cuda, spec_text, spec.cuda);
    else if (!best)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cuDNN %s is not installed; run 'cdm install %s' (see 'cdm list')",
                           spec_text, spec_text);
    else if (pick.count > 1)
        rc = cdm_error_set(ctx, CDM_EAMBIGUOUS,
                           "'%s' matches several installs (%s); choose one with --cuda N",
                           spec_text, sb_str(&pick.names));
    else
        *out = *best;
    version_pick_free(&pick);
    free(all);
    return rc;
}

/* ---- checksums given beside the archive ------------------------------------------ */

static bool is_sha256_hex(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!isxdigit((unsigned char)s[n]))
            return false;
    return n == 64;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* The hash on a line "HEX  name" or "HEX *name" whose name is base (or any name when base
 * is NULL, for a .sha256 file that holds only the hash). */
/* Whether a checksum line's file name (len bytes) is base, alone or as a path's last part. */
static bool line_names(const char *name, size_t len, const char *base)
{
    size_t b = strlen(base);
    if (len < b || strncmp(name + len - b, base, b))
        return false;
    return len == b || name[len - b - 1] == '/';
}

static bool sums_lookup(const char *file, const char *base, char out[65])
{
    FILE *f = fs_fopen(file, "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        char hex[65];
        size_t i = 0;
        while (i < 64 && isxdigit((unsigned char)line[i]))
            hex[i] = line[i], i++;
        hex[i] = '\0';
        if (i != 64 || (line[64] && !isspace((unsigned char)line[64])))
            continue;
        const char *name = line + 64;
        while (*name == ' ' || *name == '\t')
            name++;
        if (*name == '*')
            name++;
        size_t len = strcspn(name, "\r\n");
        if (base && !line_names(name, len, base))
            continue;
        lower(hex);
        memcpy(out, hex, 65);
        found = true;
    }
    fclose(f);
    return found;
}

struct expected_hash {
    char hex[65];
    char source[4200]; /* where it came from, for the message */
};

/* Every checksum that applies: --sha256, <archive>.sha256, SHA256SUMS beside it. */
static int expected_hashes(cdm_ctx *ctx, const char *archive, const char *given,
                           struct expected_hash out[3], int *count)
{
    *count = 0;
    if (given) {
        if (!is_sha256_hex(given))
            return cdm_error_set(ctx, CDM_EINVAL, "--sha256 '%s' is not a SHA-256 (64 hex digits)",
                                 given);
        copy_str(out[0].hex, sizeof(out[0].hex), given);
        lower(out[0].hex);
        copy_str(out[0].source, sizeof(out[0].source), "--sha256");
        (*count)++;
    }
    char *side = xasprintf("%s.sha256", archive);
    if (fs_kind(side) == FS_FILE) {
        if (!sums_lookup(side, NULL, out[*count].hex)) {
            int rc =
                cdm_error_set(ctx, CDM_ECHECKSUM,
                              "cannot read a SHA-256 from '%s'; fix or delete that file", side);
            free(side);
            return rc;
        }
        copy_str(out[*count].source, sizeof(out[*count].source), side);
        (*count)++;
    }
    free(side);
    char *dir = path_dirname(archive);
    char *sums = path_join(dir, "SHA256SUMS");
    if (fs_kind(sums) == FS_FILE && sums_lookup(sums, path_basename(archive), out[*count].hex)) {
        copy_str(out[*count].source, sizeof(out[*count].source), sums);
        (*count)++;
    }
    free(sums);
    free(dir);
    return CDM_OK;
}

static int check_hashes(cdm_ctx *ctx, const char *archive, const char *actual,
                        const struct expected_hash *expected, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(expected[i].hex, actual))
            return cdm_error_set(ctx, CDM_ECHECKSUM,
                                 "checksum mismatch for '%s': %s says %s but the file hashes "
                                 "to %s; download it again; nothing was installed",
                                 archive, expected[i].source, expected[i].hex, actual);
    return CDM_OK;
}

/* ---- install ----------------------------------------------------------------------- */

static int check_content(cdm_ctx *ctx, const char *archive, const struct archive_name *name,
                         const struct extract_result *x)
{
    if (!x->header_found)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "'%s' has no include/cudnn_version.h or include/cudnn.h with the "
                             "version macros; is it a cuDNN archive?",
                             archive);
    if (x->major != name->version.part[0] || x->minor != name->version.part[1] ||
        x->patch != name->version.part[2])
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "'%s': its name says cuDNN %d.%d.%d but its header says %d.%d.%d; "
                             "the file was renamed or repacked, get the original archive",
                             archive, name->version.part[0], name->version.part[1],
                             name->version.part[2], x->major, x->minor, x->patch);
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

static void describe(cdm_ctx *ctx, const char *archive, const struct archive_name *name,
                     const struct extract_result *x, struct cdm_install_info *in)
{
    memset(in, 0, sizeof(*in));
    version_format(&name->version, in->version, sizeof(in->version));
    snprintf(in->id, sizeof(in->id), "%s-cuda%d", in->version, name->cuda_major);
    in->cuda = name->cuda_major;
    copy_str(in->platform, sizeof(in->platform), name->platform);
    /* The content decides: an old cuda/ top folder, else the version's own layout. */
    char layout = !strcmp(x->top, "cuda") ? 'A' : layout_for_version(&name->version);
    if (layout == 'A' && strcmp(x->top, "cuda"))
        layout = 'B';
    in->layout[0] = layout;
    layout_result(&x->scan, in->bin_dir, sizeof(in->bin_dir), in->lib_dir, sizeof(in->lib_dir),
                  in->include_dir, sizeof(in->include_dir));
    copy_str(in->archive_name, sizeof(in->archive_name), path_basename(archive));
    in->archive_size = x->archive_size;
    copy_str(in->sha256, sizeof(in->sha256), x->sha256);
    in->official = official_archive_for(x->sha256) != NULL;
    in->installed_at = (int64_t)time(NULL);
    in->size = x->extracted_size;
    char *path = store_install_path(ctx, in->id);
    copy_str(in->path, sizeof(in->path), path);
    free(path);
}

/* Steps after a checked extraction: see the comment at the top of this file. */
static int commit_install(cdm_ctx *ctx, const char *tmp, const struct cdm_install_info *in,
                          const struct extract_result *x)
{
    char *ready = store_staging_path(ctx, in->id, "ready");
    char *old = store_staging_path(ctx, in->id, "old");
    char *final = store_install_path(ctx, in->id);
    char *staging = store_staging_dir(ctx);
    fs_crash_point("extracted");
    int rc = fs_rename(ctx, tmp, ready);
    if (rc)
        goto out;
    fs_sync_dir(staging);
    if ((rc = db_begin(ctx)))
        goto undo;
    if ((rc = db_install_put(ctx, in, "pending")) ||
        (rc = db_files_add(ctx, in->id, x->files, x->file_count)) || (rc = db_commit(ctx))) {
        db_rollback(ctx);
        goto undo;
    }
    /* From here the record is the journal: a failure is finished by store_recover. */
    fs_crash_point("recorded");
    if (fs_kind(final) != FS_NONE && (rc = fs_rename(ctx, final, old)))
        goto out;
    fs_crash_point("moved-aside");
    if ((rc = fs_rename(ctx, ready, final)))
        goto out;
    fs_sync_dir(ctx->root);
    fs_crash_point("renamed");
    if ((rc = db_install_set_state(ctx, in->id, "ok")))
        goto out;
    if (fs_kind(old) != FS_NONE)
        rc = fs_remove_tree(ctx, old);
    goto out;
undo:
    fs_remove_tree(ctx, ready);
out:
    free(staging);
    free(final);
    free(old);
    free(ready);
    return rc;
}

static int resolve_archive(cdm_ctx *ctx, const struct cdm_install_request *req,
                           const char *platform, char **archive)
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
    return sources_find(ctx, &spec, platform, req->what, archive);
}

int cdm_install(cdm_ctx *ctx, const struct cdm_install_request *req,
                struct cdm_install_result *result)
{
    memset(result, 0, sizeof(*result));
    const char *platform = req->platform ? req->platform : fs_host_platform();
    char *archive = NULL, *tmp = NULL;
    struct extract_result x = {0};
    int rc = store_open(ctx, true);
    if (rc || (rc = resolve_archive(ctx, req, platform, &archive)))
        goto out;

    struct archive_name name;
    if (!archive_name_parse(path_basename(archive), &name)) {
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot tell the cuDNN version from the name '%s'; keep NVIDIA's "
                           "file name (such as cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)",
                           path_basename(archive));
        goto out;
    }
    if (strcmp(name.platform, platform)) {
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "'%s' is for %s but this store is for %s; install it on a %s "
                           "machine, or pass --platform %s to fill a store for one",
                           archive, name.platform, platform, name.platform, name.platform);
        goto out;
    }
    if (req->cuda && req->cuda != name.cuda_major) {
        rc = cdm_error_set(ctx, CDM_EINVAL, "'%s' is a CUDA %d build but --cuda says %d", archive,
                           name.cuda_major, req->cuda);
        goto out;
    }
    struct expected_hash expected[3];
    int expected_count;
    if ((rc = expected_hashes(ctx, archive, req->sha256, expected, &expected_count)))
        goto out;

    char version[32], id[64];
    version_format(&name.version, version, sizeof(version));
    snprintf(id, sizeof(id), "%s-cuda%d", version, name.cuda_major);
    struct cdm_install_info existing;
    if (db_install_get(ctx, id, &existing, NULL) == CDM_OK) {
        /* Hash first: the same archive again is not an error, and costs no extraction. */
        char sha[65];
        uint64_t size;
        if ((rc = archive_hash(ctx, archive, sha, &size)) ||
            (rc = check_hashes(ctx, archive, sha, expected, expected_count)))
            goto out;
        /* --force with the same archive reinstalls: the way to repair a damaged folder. */
        if (!strcmp(sha, existing.sha256) && fs_kind(existing.path) == FS_DIR && !req->force) {
            result->install = existing;
            result->changed = false;
            goto out;
        }
        if (!req->force && !strcmp(sha, existing.sha256)) {
            /* recorded, but its folder is gone: put it back */
        } else if (!req->force) {
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "%s is installed already from another archive ('%s', sha256 "
                               "%.12s...); pass --force to replace it",
                               id, existing.archive_name, existing.sha256);
            goto out;
        }
    }

    tmp = store_staging_tmp(ctx, id);
    if ((rc = fs_mkdir(ctx, tmp)))
        goto out;
    struct extract_limits limits = {ctx->config.max_total_size, ctx->config.max_entries};
    if ((rc = archive_extract(ctx, archive, tmp, &limits, &x)) ||
        (rc = check_hashes(ctx, archive, x.sha256, expected, expected_count)) ||
        (rc = check_content(ctx, archive, &name, &x)))
        goto out;
    describe(ctx, archive, &name, &x, &result->install);
    if ((rc = commit_install(ctx, tmp, &result->install, &x)))
        goto out;
    result->changed = true;
out:
    if (tmp && fs_kind(tmp) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, tmp);
        error_restore(ctx, &saved);
    }
    extract_result_free(&x);
    free(tmp);
    free(archive);
    return rc;
}

/* ---- remove ------------------------------------------------------------------------ */

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
