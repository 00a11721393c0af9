/*
 * Offline bundles, for machines with no way to NVIDIA's servers or a package index (as
 * pixi-pack does for conda environments). `cdm bundle` writes one tar (bundle_tar.h):
 *
 *   cudnn.lock, .cudnn-version       the project's lock (and pin), as they are
 *   archives/<name>                  each platform's archive the lock names
 *   bin/<platform>/cdm[.exe]         cdm itself for each platform
 *   SHA256SUMS                       every member's SHA-256, sha256sum's format
 *
 * Each archive is held to the lock's SHA-256 as it goes in. `cdm install --from-bundle`
 * takes out only the lock, the sums and this machine's archive, holds the archive to both,
 * and installs it as any archive, offline.
 */
#include "bundle_tar.h"
#include "cdm_archive.h"
#include "lock.h"
#include "sources.h"
#include "store.h"
#include "store_paths.h"
#include "platform/app_dirs.h"
#include "platform/binfmt.h"
#include "platform/fs.h"
#include "platform/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 8

/* What goes in, and the folder that holds what was fetched for it. */
struct bundle {
    cdm_ctx *ctx;
    const struct cdm_bundle_request *req;
    char *tmp;
    struct bundle_member members[2 * MAX_PLATFORMS + 3];
    char *owned[6 * MAX_PLATFORMS + 4]; /* the members' names and paths made here */
    size_t n, nowned;
    struct strbuf sums; /* SHA256SUMS */
};

static const char *keep(struct bundle *b, char *s)
{
    b->owned[b->nowned++] = s;
    return s;
}

/* A member, with its SHA-256 when known already (an archive, held to the lock as it was
 * found), else read here. */
static int add_member(struct bundle *b, char *name, const char *path, bool executable,
                      const char *known)
{
    char hex[65];
    uint64_t size = 0;
    int rc = known ? CDM_OK : archive_hash(b->ctx, path, hex, &size);
    if (!rc) {
        b->members[b->n++] = (struct bundle_member){keep(b, name), path, executable};
        sb_addf(&b->sums, "%s  %s\n", known ? known : hex, name);
    } else {
        free(name);
    }
    return rc;
}

/* The archive the lock names for platform, its bytes checked: from [install] sources, else
 * downloaded from [fetch] base into the bundle's folder. */
static int fetch_archive(struct bundle *b, const struct lock_archive *e, const char *platform,
                         const char **path)
{
    cdm_ctx *ctx = b->ctx;
    char spec_text[64];
    snprintf(spec_text, sizeof(spec_text), "%s-cuda%d", e->version, e->cuda);
    struct version_spec spec;
    char *found = NULL, hex[65] = "";
    uint64_t size = 0;
    if (version_spec_parse(spec_text, &spec) &&
        sources_find(ctx, &spec, platform, spec_text, &found) == CDM_OK &&
        !strcmp(path_basename(found), e->archive) && archive_hash(ctx, found, hex, &size) == 0 &&
        !strcmp(hex, e->sha256)) {
        *path = keep(b, found);
        return CDM_OK;
    }
    free(found);
    struct cdm_fetch_request fr = {spec_text, e->cuda, platform, b->tmp};
    struct cdm_fetch_result got;
    int rc = cdm_fetch(ctx, &fr, &got);
    if (rc)
        return cdm_error_wrap(ctx, rc, "cannot bundle %s's archive '%s'", platform, e->archive);
    if (strcmp(path_basename(got.path), e->archive) ||
        (rc = archive_hash(ctx, got.path, hex, &size)))
        return rc ? rc
                  : cdm_error_set(ctx, CDM_EMISMATCH,
                                  "cannot bundle %s's archive: [fetch] base offers '%s', and the "
                                  "lock names '%s'",
                                  platform, path_basename(got.path), e->archive);
    if (strcmp(hex, e->sha256))
        return cdm_error_set(ctx, CDM_EMISMATCH,
                             "cannot bundle '%s': its SHA-256 is %.12s..., and the lock names "
                             "%.12s...; the lock names other bytes than [fetch] base has",
                             e->archive, hex, e->sha256);
    *path = keep(b, xstrdup(got.path));
    return CDM_OK;
}

/* cdm's binary for platform: the running one for this machine's, else the one given. */
static int binary_for(struct bundle *b, const char *platform, const char **path)
{
    bool windows = !strncmp(platform, "windows", 7);
    const char *given = NULL;
    size_t len = strlen(platform);
    for (size_t i = 0; i < b->req->nbinaries; i++)
        if (!strncmp(b->req->binaries[i], platform, len) && b->req->binaries[i][len] == '=')
            given = b->req->binaries[i] + len + 1;
    if (!given && !strcmp(platform, cdm_host_platform()))
        given = keep(b, app_self_path());
    if (!given || !*given)
        return cdm_error_set(b->ctx, CDM_EINVAL,
                             "the bundle needs cdm for %s: give --cdm %s=PATH (%s)", platform,
                             platform, windows ? "cdm.exe, the Windows release" : "its cdm");
    FILE *f = fs_fopen_read(given);
    enum bin_format format = f ? bin_detect(f) : BIN_UNKNOWN;
    if (f)
        fclose(f);
    if (format != (windows ? BIN_PE : BIN_ELF))
        return cdm_error_set(b->ctx, CDM_EINVAL,
                             "'%s' is not a %s program (%s): give cdm's binary for %s", given,
                             windows ? "Windows" : "Linux", windows ? "PE" : "ELF", platform);
    *path = given;
    return CDM_OK;
}

/* Every platform's archive and binary, after the lock and the pin. */
static int gather(struct bundle *b, const char *project, const char *const *platforms, size_t np)
{
    char *lock = path_join(project, CDM_LOCK_FILE), *pin = path_join(project, CDM_PIN_FILE);
    keep(b, lock);
    keep(b, pin);
    int rc = add_member(b, xstrdup(CDM_LOCK_FILE), lock, false, NULL);
    if (!rc && fs_kind(pin) == FS_FILE)
        rc = add_member(b, xstrdup(CDM_PIN_FILE), pin, false, NULL);
    for (size_t i = 0; !rc && i < np; i++) {
        struct lock_archive e;
        const char *archive = NULL, *binary = NULL;
        if ((rc = lock_archive_for(b->ctx, project, platforms[i], &e)) ||
            (rc = fetch_archive(b, &e, platforms[i], &archive)) ||
            (rc = binary_for(b, platforms[i], &binary)) ||
            (rc = add_member(b, xasprintf("archives/%s", e.archive), archive, false, e.sha256)))
            break;
        const char *exe = !strncmp(platforms[i], "windows", 7) ? "cdm.exe" : "cdm";
        rc = add_member(b, xasprintf("bin/%s/%s", platforms[i], exe), binary, true, NULL);
    }
    return rc;
}

/* This machine's platform, then the request's others, each once. */
static int platform_list(cdm_ctx *ctx, const struct cdm_bundle_request *req, const char **out,
                         size_t *n)
{
    out[0] = cdm_host_platform();
    *n = 1;
    for (size_t i = 0; i < req->nplatforms; i++) {
        bool seen = false;
        for (size_t k = 0; k < *n; k++)
            seen = seen || !strcmp(out[k], req->platforms[i]);
        if (seen)
            continue;
        if (*n == MAX_PLATFORMS)
            return cdm_error_set(ctx, CDM_EINVAL, "a bundle holds at most %d platforms",
                                 MAX_PLATFORMS);
        out[(*n)++] = req->platforms[i];
    }
    return CDM_OK;
}

int cdm_bundle(cdm_ctx *ctx, const struct cdm_bundle_request *req, struct cdm_bundle_result *out)
{
    memset(out, 0, sizeof(*out));
    struct cdm_project p;
    const char *platforms[MAX_PLATFORMS];
    size_t np = 0;
    int rc =
        req->project ? cdm_project_open(ctx, req->project, &p) : cdm_project_find(ctx, NULL, &p);
    if (rc || (rc = platform_list(ctx, req, platforms, &np)) ||
        (rc = copy_path(ctx, out->path, sizeof(out->path), req->output)))
        return rc;
    struct bundle b = {.ctx = ctx, .req = req, .sums = STRBUF_INIT};
    b.tmp = xasprintf("%s.cdm-parts", req->output);
    if (fs_kind(b.tmp) == FS_DIR)
        fs_remove_tree(ctx, b.tmp); /* an earlier run's, cut short */
    if (!(rc = fs_mkdir(ctx, b.tmp)) && !(rc = gather(&b, p.path, platforms, np))) {
        const char *sums = keep(&b, path_join(b.tmp, "SHA256SUMS"));
        b.members[b.n++] = (struct bundle_member){"SHA256SUMS", sums, false};
        if (!(rc = fs_atomic_write_whole(ctx, sums, sb_str(&b.sums), b.sums.len)))
            rc = bundle_tar_write(ctx, req->output, b.members, b.n);
    }
    if (!rc) {
        struct lock_archive e;
        lock_archive_for(ctx, p.path, platforms[0], &e); /* read above: it is there */
        install_id_format(e.version, e.cuda, out->install_id, sizeof(out->install_id));
        out->platforms = np;
        FILE *f = fs_fopen_read(req->output);
        out->size = f && fs_seek(f, 0, SEEK_END) == 0 ? (uint64_t)fs_tell(f) : 0;
        if (f)
            fclose(f);
    }
    if (fs_kind(b.tmp) == FS_DIR) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, b.tmp);
        if (rc)
            error_restore(ctx, &saved);
        else
            free(saved.message);
    }
    for (size_t i = 0; i < b.nowned; i++)
        free(b.owned[i]);
    sb_free(&b.sums);
    free(b.tmp);
    return rc;
}

/* The line of SHA256SUMS for name: its hex, or NULL. */
static const char *sum_of(const char *sums, const char *name, char hex[65])
{
    for (const char *line = sums; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len == 66 + strlen(name) && !strncmp(line + 66, name, strlen(name)) &&
            line[64] == ' ' && line[65] == ' ') {
            memcpy(hex, line, 64);
            hex[64] = '\0';
            return hex;
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

/* This machine's archive out of the bundle into dir, held to the lock and the sums. */
static int take_archive(cdm_ctx *ctx, const char *bundle, const char *dir, struct lock_archive *e,
                        char **archive)
{
    const char *meta[] = {CDM_LOCK_FILE, "SHA256SUMS"};
    bool found[2];
    int rc = bundle_tar_take(ctx, bundle, meta, 2, dir, found);
    if (!rc && !found[0])
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "'%s' holds no cudnn.lock: it is no bundle of cdm's; make one with "
                           "'cdm bundle'",
                           bundle);
    if (rc || (rc = lock_archive_for(ctx, dir, cdm_host_platform(), e)))
        return rc;
    char *member = xasprintf("archives/%s", e->archive);
    const char *want[] = {member};
    bool have = false;
    if (!(rc = bundle_tar_take(ctx, bundle, want, 1, dir, &have)) && !have)
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "'%s' holds no '%s', which its lock names for this machine (%s); make "
                           "the bundle again with --platform %s",
                           bundle, member, cdm_host_platform(), cdm_host_platform());
    struct strbuf sums = STRBUF_INIT;
    char *sums_path = path_join(dir, "SHA256SUMS"), listed[65], hex[65] = "";
    *archive = path_join(dir, e->archive);
    uint64_t size = 0;
    if (!rc && found[1] && fs_read_file(sums_path, 1 << 20, &sums) &&
        sum_of(sb_str(&sums), member, listed) && strcmp(listed, e->sha256))
        rc = cdm_error_set(ctx, CDM_EMISMATCH,
                           "'%s': its SHA256SUMS and its cudnn.lock name other bytes for '%s'; "
                           "make the bundle again",
                           bundle, member);
    if (!rc && !(rc = archive_hash(ctx, *archive, hex, &size)) && strcmp(hex, e->sha256))
        rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                           "'%s' in the bundle '%s' has SHA-256 %.12s..., and its lock names "
                           "%.12s...: the bundle was changed or damaged; nothing was installed",
                           member, bundle, hex, e->sha256);
    sb_free(&sums);
    free(sums_path);
    free(member);
    return rc;
}

int cdm_install_from_bundle(cdm_ctx *ctx, const char *bundle, const struct cdm_install_request *req,
                            struct cdm_install_result *result)
{
    memset(result, 0, sizeof(*result));
    int rc = store_open(ctx, STORE_WRITE, RECOVER_INSTALLS);
    if (rc)
        return rc;
    /* in .staging/: a kill leaves a leftover the next writer deletes */
    char *dir = store_staging_tmp(ctx, "bundle");
    char *archive = NULL;
    struct lock_archive e;
    if (!(rc = fs_mkdir(ctx, dir)) && !(rc = take_archive(ctx, bundle, dir, &e, &archive))) {
        struct cdm_install_request from = *req;
        from.what = archive;
        from.sha256 = e.sha256;
        from.cuda = e.cuda;
        from.platform = NULL;
        rc = cdm_install(ctx, &from, result);
    }
    if (fs_kind(dir) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_tree(ctx, dir);
        if (rc)
            error_restore(ctx, &saved);
        else
            free(saved.message);
    }
    free(archive);
    free(dir);
    return rc;
}
