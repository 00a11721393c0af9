/*
 * cdm lock: cudnn.lock beside a project's pin names the exact archive of its cuDNN for each
 * platform it is used on (file name, size, SHA-256), so that a fresh clone installs the same
 * bytes however NVIDIA's listings change, and a mismatch is refused. An INI file:
 *
 *   [cudnn]
 *   version = 9.27.0.48
 *   cuda = 12
 *   [linux-x86_64]
 *   archive = cudnn-linux-x86_64-9.27.0.48_cuda12-archive.tar.xz
 *   size = 123456
 *   sha256 = 0123...
 *
 * This machine's platform comes from the install's own record (what was installed, from
 * whatever source); another platform from the manifest at [fetch] base.
 */
#include "lock_file.h"
#include "db.h"
#include "userstate.h"
#include "platform/fs.h"
#include "store.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

/* The manifest's archive of version/cuda for platform. */
static int offer_for(cdm_ctx *ctx, const struct lock *l, const char *platform, struct lock_entry *e)
{
    struct cdm_offer *v = NULL;
    size_t n = 0;
    struct cdm_available_request req = {l->version, l->cuda, platform, NULL};
    int rc = cdm_available(ctx, &req, &v, &n);
    const struct cdm_offer *found = NULL;
    for (size_t i = 0; !rc && i < n; i++)
        if (!strcmp(v[i].version, l->version) && v[i].cuda == l->cuda)
            found = &v[i];
    if (!rc && !found)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cannot lock %s for %s: [fetch] base lists no such archive (CUDA %d); "
                           "check the platform's name ('cdm available %s --platform all')",
                           l->version, platform, l->cuda, l->version);
    if (found) {
        COPY_STR_ARRAY(e->archive, found->name);
        e->size = found->size;
        COPY_STR_ARRAY(e->sha256, found->sha256);
    }
    free(v);
    return rc;
}

/* Write l as the lock at path: only as cdm's own file. As with the pin, a repository may
 * ship the lock as a link: refused, never written through. */
static int lock_write(cdm_ctx *ctx, const char *path, const struct lock *l)
{
    enum fs_kind kind = fs_kind(path);
    if (kind != FS_NONE && kind != FS_FILE)
        return cdm_error_set(ctx, CDM_EIO,
                             "cannot write the lock '%s': it is %s, and cdm writes its lock only "
                             "as a file of its own; remove it, then run 'cdm lock' again",
                             path, kind == FS_LINK ? "a link" : "no regular file");
    char *text = lock_text(l);
    int rc = text_file_write(ctx, path, text);
    free(text);
    return rc;
}

int cdm_lock(cdm_ctx *ctx, const struct cdm_lock_request *req, struct cdm_lock_result *out)
{
    memset(out, 0, sizeof(*out));
    struct cdm_project p;
    int rc =
        req->project ? cdm_project_open(ctx, req->project, &p) : cdm_project_find(ctx, NULL, &p);
    if (rc || (rc = store_open(ctx, STORE_READ, 0)))
        return rc;
    COPY_STR_ARRAY(out->project, p.path);
    char *path = lock_path(p.path);
    if ((rc = copy_path(ctx, out->path, sizeof(out->path), path)))
        goto out;
    const char *id = *p.linked_id ? p.linked_id : p.pinned_id;
    struct cdm_install_info in;
    if (!*id || db_install_get(ctx, id, &in) != CDM_OK) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cannot lock '%s': it uses no installed cuDNN (%s); run 'cdm link %s "
                           "VERSION' first",
                           p.path, *id ? id : "no link, no pin", p.path);
        goto out;
    }
    COPY_STR_ARRAY(out->install_id, in.id);
    if (req->check) {
        struct lock l;
        if ((rc = lock_read(ctx, p.path, &l)) == CDM_ENOTFOUND)
            rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                               "cannot check '%s': there is none; write it "
                               "with 'cdm lock'",
                               path);
        const struct lock_entry *e = rc ? NULL : lock_entry_for(&l, in.platform, false);
        if (!rc && !e)
            rc = cdm_error_set(ctx, CDM_EMISMATCH, "'%s' names no archive for %s", path,
                               in.platform);
        if (!rc &&
            (strcmp(l.version, in.version) || l.cuda != in.cuda || strcmp(e->sha256, in.sha256)))
            rc = cdm_error_set(ctx, CDM_EMISMATCH,
                               "'%s' names cuDNN %s for CUDA %d (sha256 %.12s...), and the "
                               "project uses %s (sha256 %.12s...): run 'cdm link' to install "
                               "what the lock names, or 'cdm lock' to lock what is used",
                               path, l.version, l.cuda, e->sha256, in.id, in.sha256);
        goto out;
    }
    struct lock l = {.cuda = in.cuda};
    COPY_STR_ARRAY(l.version, in.version);
    /* this machine: the bytes that were installed */
    struct lock_entry *e = lock_entry_for(&l, in.platform, true);
    COPY_STR_ARRAY(e->archive, in.archive_name);
    e->size = in.archive_size;
    COPY_STR_ARRAY(e->sha256, in.sha256);
    for (size_t i = 0; !rc && i < req->nplatforms; i++) {
        if (!strcmp(req->platforms[i], in.platform))
            continue;
        struct lock_entry *other = lock_entry_for(&l, req->platforms[i], true);
        if (!other && l.count == CDM_ARRAY_LEN(l.entries))
            rc = cdm_error_set(ctx, CDM_EINVAL, "cannot lock more than %zu platforms",
                               CDM_ARRAY_LEN(l.entries));
        else if (!other)
            rc = cdm_error_set(ctx, CDM_EINVAL,
                               "'%s' is no platform; see 'cdm available "
                               "--platform all'",
                               req->platforms[i]);
        else
            rc = offer_for(ctx, &l, req->platforms[i], other);
    }
    if (!rc && !(rc = lock_write(ctx, path, &l))) {
        out->platforms = l.count;
        out->changed = true;
    }
out:
    free(path);
    return rc;
}

int cdm_lock_ensure(cdm_ctx *ctx, const char *project, struct cdm_lock_result *out)
{
    memset(out, 0, sizeof(*out));
    struct cdm_project p;
    int rc = project ? cdm_project_open(ctx, project, &p) : cdm_project_find(ctx, NULL, &p);
    if (rc == CDM_ENOTFOUND && !project)
        return CDM_OK; /* no project here: nothing locked */
    if (rc)
        return rc;
    struct lock l;
    if ((rc = lock_read(ctx, p.path, &l)) == CDM_ENOTFOUND)
        return CDM_OK;
    if (rc)
        return rc;
    COPY_STR_ARRAY(out->project, p.path);
    char *path = lock_path(p.path);
    if ((rc = copy_path(ctx, out->path, sizeof(out->path), path))) {
        free(path);
        return rc;
    }
    const struct lock_entry *e = lock_entry_for(&l, cdm_host_platform(), false);
    if (!e) {
        rc = cdm_error_set(ctx, CDM_EMISMATCH,
                           "'%s' names no archive for this machine (%s); add it with 'cdm lock "
                           "--platform %s' where the project's cuDNN is installed",
                           path, cdm_host_platform(), cdm_host_platform());
        free(path);
        return rc;
    }
    char id[64];
    install_id_format(l.version, l.cuda, id, sizeof(id)); /* a 32-byte version always fits */
    COPY_STR_ARRAY(out->install_id, id);
    struct cdm_install_info in;
    if ((rc = store_open(ctx, STORE_READ, 0)) == CDM_OK && db_install_get(ctx, id, &in) == CDM_OK) {
        if (strcmp(in.sha256, e->sha256))
            rc = cdm_error_set(ctx, CDM_EMISMATCH,
                               "cannot use %s for '%s': it was installed from another archive "
                               "(sha256 %.12s...) than '%s' names (%s, sha256 %.12s...); "
                               "install that one with 'cdm install %s --sha256 %s --force'",
                               id, p.path, in.sha256, path, e->archive, e->sha256, e->archive,
                               e->sha256);
        free(path);
        return rc;
    }
    /* not installed: exactly the locked bytes, from the sources or the base */
    /* a locked wheel comes back from the package index, an archive from [fetch] sources */
    struct cdm_install_request req = {.what = l.version,
                                      .cuda = l.cuda,
                                      .sha256 = e->sha256,
                                      .from =
                                          str_ends_with_icase(e->archive, ".whl") ? "pypi" : NULL};
    struct cdm_install_result r;
    rc = cdm_install(ctx, &req, &r);
    if (rc) {
        rc = cdm_error_wrap(ctx, rc, "cannot install what '%s' names (%s)", path, e->archive);
    } else {
        out->changed = true;
    }
    free(path);
    return rc;
}
