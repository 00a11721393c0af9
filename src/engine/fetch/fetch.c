/*
 * Downloads as commands use them: for cdm install (the archive goes to
 * <root>/downloads/<name>.partial and is installed from there, then deleted), for
 * cdm fetch --into DIR (archive, manifest and a SHA256SUMS line kept in DIR), and the
 * clean-up of partial downloads nobody resumes.
 */
#include "cdm_archive.h"
#include "fetch.h"
#include "oci_artifact.h"
#include "platform/fs.h"
#include "pypi.h"
#include "redist.h"
#include "store_paths.h"
#include "version.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Whether the store has this very archive installed, its folder in place (1), or not
 * (0); an error when another archive made that install and force is not given, so
 * nothing is downloaded in vain. */
static int in_store(cdm_ctx *ctx, const struct manifest_entry *e, bool force,
                    struct cdm_install_info *out)
{
    char id[64];
    install_id_format(e->version, e->cuda, id, sizeof(id));
    db_close(ctx); /* a fresh look: another process may have installed it meanwhile */
    int rc = db_open_read(ctx);
    if (rc || db_install_get(ctx, id, out) != CDM_OK || out->state != CDM_INSTALL_OK)
        return rc;
    if (!strcmp(out->sha256, e->sha256))
        return force || fs_kind(out->path) != FS_DIR ? 0 : 1;
    if (force)
        return 0;
    return cdm_error_set(ctx, CDM_EEXISTS,
                         "%s is installed already from another archive ('%s', sha256 %.12s...); "
                         "pass --force to replace it",
                         id, out->archive_name, out->sha256);
}

static bool same_hex(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* in_store's answer for fetch_for_install: true when there is nothing to download (it is
 * installed, or must not be replaced), *rc then saying which. */
static bool done_already(cdm_ctx *ctx, const struct manifest_entry *e, bool force,
                         struct fetched *out, int *rc)
{
    int r = in_store(ctx, e, force, &out->existing);
    out->installed = r == 1;
    *rc = r == 1 ? CDM_OK : r;
    return r != 0;
}

/* Download e from url into <root>/downloads, unless another process installed it while
 * this one waited for the download's lock; out->path is then the verified file, or, for
 * a .tar.xz or a zip, the file still arriving (out->stream), unpacked as it comes. */
static int download_entry(cdm_ctx *ctx, struct net *net, const char *url,
                          const struct manifest_entry *e, bool force, struct fetched *out)
{
    char *folder = store_downloads_dir(ctx);
    int rc = download_hold(ctx, folder, e, &out->hold);
    free(folder);
    /* after the wait: another process may have installed it meanwhile */
    if (rc || done_already(ctx, e, force, out, &rc))
        return rc;
    if (e->size && archive_unpacks_arriving(e->name) &&
        (out->stream = download_stream_start(ctx, net, url, e, &out->hold))) {
        cdm_note(ctx, "unpacking '%s' as it downloads", e->name);
        out->path = xstrdup(out->hold.partial);
        return CDM_OK;
    }
    rc = download_run(ctx, net, url, e, &out->hold);
    if (!rc)
        out->path = xstrdup(out->hold.partial);
    return rc;
}

/* NVIDIA's archive from [fetch] base, found in its manifests. */
static int from_redist(cdm_ctx *ctx, const struct cdm_install_request *req, const char *platform,
                       struct fetched *out)
{
    struct redist r;
    struct redist_pick pick;
    memset(&pick, 0, sizeof(pick));
    int rc = redist_open(ctx, &r);
    if (rc) {
        out->off = rc == CDM_ENOTFOUND;
        goto out;
    }
    if ((rc = redist_find(&r, req->what, req->cuda, platform, &pick)))
        goto out;
    const struct manifest_entry *e = pick.entry;
    if (req->sha256 && !same_hex(req->sha256, e->sha256)) {
        out->other_file = true;
        rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                           "--sha256 %s is not the hash of '%s' in '%s' (%s); nothing was "
                           "downloaded",
                           req->sha256, e->name, pick.manifest_url, e->sha256);
        goto out;
    }
    COPY_STR_ARRAY(out->name, e->name);
    COPY_STR_ARRAY(out->sha256, e->sha256);
    out->source_noun = "manifest";
    if ((rc = copy_path(ctx, out->source, sizeof(out->source), pick.manifest_url)))
        goto out;
    out->official = r.official;
    if (done_already(ctx, e, req->force, out, &rc))
        goto out;
    if (r.dir) {
        /* a local base: installed in place, its hash checked while it is read */
        if (!(out->path = redist_local_archive(&r, e)))
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "'%s' lists '%s', but it is not in '%s'; fetch it again (cdm "
                               "fetch --into)",
                               pick.manifest_url, e->relative_path, r.dir);
        goto out;
    }
    char *url = redist_entry_location(&r, e);
    rc = download_entry(ctx, &r.net, url, e, req->force, out);
    free(url);
out:
    redist_pick_free(&pick);
    redist_close(&r);
    return rc;
}

/* NVIDIA's wheel from a Python package index, checked against the index's sha256. */
static int from_index(cdm_ctx *ctx, const struct cdm_install_request *req, const char *platform,
                      struct fetched *out)
{
    char *index = pypi_index_url(ctx);
    if (!index)
        return cdm_error_code(ctx);
    struct net net;
    net_init(&net, ctx);
    struct index_pick pick;
    int rc = pypi_find(ctx, &net, index, req->what, req->cuda, platform, &pick);
    const struct manifest_entry *e = &pick.entry;
    if (!rc && req->sha256 && !same_hex(req->sha256, e->sha256) && (out->other_file = true))
        rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                           "--sha256 %s is not the hash of '%s' on '%s' (%s); nothing was "
                           "downloaded",
                           req->sha256, e->name, pick.page, e->sha256);
    if (!rc) {
        COPY_STR_ARRAY(out->name, e->name);
        COPY_STR_ARRAY(out->sha256, e->sha256);
        out->source_noun = "package index page";
        rc = copy_path(ctx, out->source, sizeof(out->source), pick.page);
    }
    if (!rc && !done_already(ctx, e, req->force, out, &rc))
        rc = download_entry(ctx, &net, pick.url, e, req->force, out);
    index_pick_free(&pick);
    net_close(&net);
    free(index);
    return rc;
}

/* cdm's artifact from a registry: the one source names (oci://REGISTRY/REPO:TAG), or the
 * newest tag of the repository it names for the version asked; its layer's digest held to
 * --sha256 (a lock's) before a byte is fetched, and the download to that digest. */
static int from_oci(cdm_ctx *ctx, const struct cdm_install_request *req, const char *platform,
                    const char *source, struct fetched *out)
{
    struct oci o;
    struct manifest_entry e;
    char *reference = NULL;
    bool direct = oci_is_ref(req->what);
    int rc = oci_open(ctx, source, false, &o);
    if (!rc)
        rc = oci_pick(&o, direct ? NULL : req->what, req->cuda, platform, &reference);
    if (!rc)
        rc = oci_read_artifact(&o, reference, &e);
    if (!rc && req->sha256 && !same_hex(req->sha256, e.sha256) && (out->other_file = true))
        rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                           "'%s' (%s) holds '%s' of sha256 %s, and the lock (or --sha256) names "
                           "%s; nothing was downloaded",
                           source, reference, e.name, e.sha256, req->sha256);
    if (!rc) {
        COPY_STR_ARRAY(out->name, e.name);
        COPY_STR_ARRAY(out->sha256, e.sha256);
        out->source_noun = "registry artifact";
        snprintf(out->source, sizeof(out->source), "oci://%s/%s@%s", o.ref.registry, o.ref.repo,
                 reference);
    }
    if (!rc && !done_already(ctx, &e, req->force, out, &rc)) {
        char digest[72];
        snprintf(digest, sizeof(digest), "sha256:%s", e.sha256);
        char *url = oci_blob_url(&o, digest);
        rc = download_entry(ctx, &o.net, url, &e, req->force, out);
        free(url);
    }
    free(reference);
    oci_close(&o);
    return rc;
}

/* The fetch sources, in the order [fetch] sources gives (config.c). How to add one: its
 * name in enum fetch_source (config.h) and config.c's names, a from_<source> beside
 * from_redist and from_index that answers CDM_ENOTFOUND when it has no such version (so
 * the next source is asked) and fills out with the file it fetched and the hash it was
 * checked against, its branch here, and a mirror of it on loopback in tests/mirror/. */
int fetch_for_install(cdm_ctx *ctx, const struct cdm_install_request *req, const char *platform,
                      struct fetched *out)
{
    memset(out, 0, sizeof(*out));
    const struct cdm_config *c = &ctx->config;
    enum fetch_source order[CONFIG_MAX_SOURCES];
    const char *registry[CONFIG_MAX_SOURCES] = {NULL};
    unsigned count = 0;
    if (oci_is_ref(req->what))
        order[count] = FETCH_OCI, registry[count++] = req->what;
    else if (req->from && !strcmp(req->from, "pypi"))
        order[count++] = FETCH_PYPI;
    else if (req->from)
        order[count++] = FETCH_NVIDIA;
    else
        for (; count < c->fetch_source_count; count++)
            order[count] = c->fetch_sources[count], registry[count] = c->fetch_oci[count];
    int rc = CDM_ENOTFOUND;
    bool next = true;
    for (unsigned i = 0; i < count && next; i++) {
        bool off = false;
        if (order[i] == FETCH_PYPI) {
            rc = from_index(ctx, req, platform, out);
        } else if (order[i] == FETCH_OCI) {
            rc = from_oci(ctx, req, platform, registry[i], out);
        } else {
            rc = from_redist(ctx, req, platform, out);
            off = out->off;
        }
        /* a later source is asked when this one has no such version, or is off, or has the
         * version but not the file --sha256 (a lock) names: a wheel's, say */
        next = rc == CDM_ENOTFOUND || (rc == CDM_ECHECKSUM && out->other_file);
        if (next && i + 1 < count) {
            struct saved_error skipped = error_save(ctx);
            cdm_note(ctx, "%s; trying %s", skipped.message ? skipped.message : "not found",
                     order[i + 1] == FETCH_PYPI  ? "the package index"
                     : order[i + 1] == FETCH_OCI ? registry[i + 1]
                                                 : "[fetch] base");
            free(skipped.message);
            memset(out, 0, sizeof(*out));
        }
        out->off = off && count == 1;
    }
    return rc;
}

const struct arriving *fetch_arriving(struct fetched *f)
{
    return f->stream && !f->settled ? download_stream_arriving(f->stream) : NULL;
}

int fetch_settle(cdm_ctx *ctx, struct fetched *f)
{
    int rc = fetch_whole(ctx, f);
    f->settled = !rc;
    return rc;
}

bool fetch_ahead_agrees(cdm_ctx *ctx, struct fetched *f)
{
    return !f->stream || f->settled || download_stream_ahead_agrees(ctx, f->stream);
}

int fetch_whole(cdm_ctx *ctx, struct fetched *f)
{
    return f->stream ? download_stream_finish(ctx, f->stream) : CDM_OK;
}

void fetch_done(cdm_ctx *ctx, struct fetched *f)
{
    /* a whole, verified download has served its purpose, installed or refused; one cut
     * short stays for the next run to resume */
    bool whole = f->hold.file && f->path;
    if (f->stream) {
        whole = download_stream_end(f->stream) && whole;
        uint64_t kept = f->hold.file ? fs_partial_size(f->hold.file) : 0;
        if (!whole && kept && ctx->interrupted && cdm_error_code(ctx)) /* Ctrl-C: say what stays */
            cdm_error_append(ctx, cdm_error_code(ctx),
                             "; the %llu bytes downloaded so far stay in '%s' for the next run "
                             "to resume ('cdm gc' removes them)",
                             (unsigned long long)kept, f->hold.partial);
    }
    f->stream = NULL;
    download_release(ctx, &f->hold, whole && !f->keep);
    free(f->path);
    f->path = NULL;
}

/* ---- cdm fetch --into ----------------------------------------------------------------- */

/* The folder's SHA256SUMS with the line for name set to sha256. */
static int note_checksum(cdm_ctx *ctx, const char *folder, const char *name, const char *sha256)
{
    char *path = path_join(folder, "SHA256SUMS");
    struct strbuf text = STRBUF_INIT;
    FILE *f = fs_fopen_read(path);
    char line[4096];
    while (f && fgets(line, sizeof(line), f)) {
        size_t n = strcspn(line, "\r\n");
        const char *file = n > 66 ? line + 66 : "";
        if (n > 66 && (size_t)(line + n - file) == strlen(name) && !strncmp(file, name, n - 66))
            continue; /* the old line for this name */
        sb_addn(&text, line, n);
        sb_addc(&text, '\n');
    }
    if (f)
        fclose(f);
    sb_addf(&text, "%s  %s\n", sha256, name);
    int rc = fs_atomic_write_whole(ctx, path, sb_str(&text), text.len);
    sb_free(&text);
    free(path);
    return rc;
}

/* A local base's archive copied into the held partial, then checked as a download is. */
static int copy_local(cdm_ctx *ctx, const char *from, const struct manifest_entry *e,
                      struct download *d)
{
    struct fs_reader *reader = NULL;
    uint64_t size;
    int rc = fs_reader_open(ctx, from, &reader, &size);
    if (rc)
        return rc;
    if (e->size && size != e->size) {
        fs_reader_close(reader);
        return cdm_error_set(ctx, CDM_ECHECKSUM,
                             "'%s' has %llu bytes but its manifest says %llu; nothing was "
                             "copied",
                             from, (unsigned long long)size, (unsigned long long)e->size);
    }
    char *buf = xmalloc(1 << 20);
    long long n = 0;
    if (!(rc = fs_partial_truncate(ctx, d->file)))
        while ((n = fs_reader_read(ctx, reader, buf, 1 << 20)) > 0 &&
               !(rc = fs_partial_append(ctx, d->file, buf, (size_t)n)))
            ;
    free(buf);
    fs_reader_close(reader);
    if (!rc && n < 0)
        rc = (int)n;
    if (rc)
        return rc;
    /* whole now: download_run only hashes it against the manifest (no network) */
    struct net none;
    net_init(&none, ctx);
    rc = download_run(ctx, &none, from, e, d);
    net_close(&none);
    return rc;
}

/* Bring the entry's archive to dest (through dest.partial); *changed false when it was
 * there already. */
static int fetch_archive(cdm_ctx *ctx, struct redist *r, const struct manifest_entry *e,
                         const char *folder, const char *dest, bool *changed)
{
    struct download d;
    *changed = false;
    int rc = CDM_OK;
    if (fs_kind(dest) != FS_FILE) {
        if ((rc = download_hold(ctx, folder, e, &d)))
            return rc;
        d.kept = true;                  /* the file itself is what this command leaves */
        if (fs_kind(dest) != FS_FILE) { /* not finished by another process meanwhile */
            char *local = r->dir ? redist_local_archive(r, e) : NULL;
            char *url = redist_entry_location(r, e);
            if (r->dir && !local)
                rc = cdm_error_set(ctx, CDM_ENOTFOUND, "'%s' is not in '%s'", e->name, r->dir);
            else
                rc = local ? copy_local(ctx, local, e, &d) : download_run(ctx, &r->net, url, e, &d);
            if (!rc && !(rc = fs_rename(ctx, d.partial, dest)))
                *changed = true;
            free(url);
            free(local);
        }
        download_release(ctx, &d, false);
        if (rc || *changed)
            return rc;
    }
    char sha[65];
    uint64_t size;
    if ((rc = archive_hash(ctx, dest, sha, &size)))
        return rc;
    if (strcmp(sha, e->sha256) || (e->size && size != e->size))
        return cdm_error_set(ctx, CDM_EEXISTS,
                             "'%s' is there already but is not the archive its manifest names "
                             "(sha256 %s, the manifest says %s); move it away and run again",
                             dest, sha, e->sha256);
    return CDM_OK;
}

int cdm_fetch(cdm_ctx *ctx, const struct cdm_fetch_request *req, struct cdm_fetch_result *result)
{
    memset(result, 0, sizeof(*result));
    const char *platform = req->platform ? req->platform : fs_host_platform();
    struct redist r;
    struct redist_pick pick;
    memset(&pick, 0, sizeof(pick));
    char *folder = fs_absolute(req->into), *dest = NULL, *manifest = NULL;
    int rc = redist_open(ctx, &r);
    if (rc || (rc = redist_find(&r, req->spec, req->cuda, platform, &pick)) ||
        (rc = fs_mkdir_p(ctx, folder)))
        goto out;
    const struct manifest_entry *e = pick.entry;
    char *url = redist_entry_location(&r, e);
    rc = redist_offer(&r, &result->offer, e, pick.label, url);
    free(url);
    if (rc)
        goto out;
    dest = path_join(folder, e->name);
    char *manifest_name = xasprintf("redistrib_%s.json", pick.label);
    manifest = path_join(folder, manifest_name);
    free(manifest_name);
    /* an archive from cdm's table of older ones has no manifest to keep */
    bool has_manifest = pick.raw.len > 0;
    if ((rc = fetch_archive(ctx, &r, e, folder, dest, &result->changed)) ||
        (has_manifest &&
         (rc = fs_atomic_write_whole(ctx, manifest, sb_str(&pick.raw), pick.raw.len))) ||
        (rc = note_checksum(ctx, folder, e->name, e->sha256)))
        goto out;
    if (!(rc = copy_path(ctx, result->path, sizeof(result->path), dest)) && has_manifest)
        rc = copy_path(ctx, result->manifest, sizeof(result->manifest), manifest);
out:
    free(dest);
    free(manifest);
    free(folder);
    redist_pick_free(&pick);
    redist_close(&r);
    return rc;
}

/* ---- partial downloads nobody resumes -------------------------------------------------- */

int cdm_downloads_clean(cdm_ctx *ctx, cdm_partial_fn fn, void *arg, unsigned *removed)
{
    *removed = 0;
    char *folder = store_downloads_dir(ctx);
    char **names = NULL;
    int rc = store_own_dir(ctx, folder, false);
    if (!rc)
        rc = fs_list_dir(ctx, folder, &names);
    else if (rc == CDM_ENOTFOUND)
        rc = CDM_OK;
    for (char **n = names; !rc && n && *n; n++) {
        if (!str_ends_with(*n, ".partial"))
            continue;
        char *path = path_join(folder, *n);
        struct fs_partial *p = NULL;
        uint64_t size;
        int lock = fs_partial_open(ctx, path, false, &p, &size);
        if (lock == CDM_OK) {
            if (fn)
                fn(arg, path, size);
            if (!(rc = fs_remove_file(ctx, path)))
                (*removed)++;
            fs_partial_close(p);
        } else if (lock != CDM_EBUSY) {
            rc = lock; /* CDM_EBUSY: being downloaded right now */
        }
        free(path);
    }
    strv_free(names);
    free(folder);
    return rc;
}
