/*
 * cdm verify: an install's folder against what was recorded when it was installed.
 * Regular files are compared by size, then SHA-256, then permission bits; links by target. Folders
 * are not recorded (they are implied by the files), so only files and links count as extra;
 * but an install whose files were made without write bits (every one since the store became
 * read-only) must have none on its folders either, and a folder that gained one is reported.
 * On Windows, which records no mode, each file must still carry the read-only attribute.
 */
#include "db.h"
#include "store.h"
#include "store_paths.h"
#include "upstream.h"
#include "verify_hash.h"
#include "view.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "platform/sha256.h"
#include "platform/thread.h"

#include <stdlib.h>
#include <string.h>

#define VERIFY_BUF (1u << 16)

struct verify {
    cdm_ctx *ctx;
    const char *id;
    const char *dir; /* <root>/<id> */
    cdm_verify_fn fn;
    void *arg;
    struct cdm_verify_result *result;
    struct sha256 *hash;
    char *buf;       /* read buffer for hashing */
    char **recorded; /* relative paths, in the index's order */
    size_t nrecorded, cap;
    bool sealed; /* files recorded without write bits: the folders must have none */
    /* Windows, where no mode is recorded: files found without the read-only attribute, judged
     * once the install is known to be sealed (protected_seen: one file still has it) */
    char **unprotected;
    size_t nunprotected;
    bool protected_seen;
    struct file_hash *hashed; /* the regular files, read beforehand on several threads */
    size_t nhashed, next_hashed;
};

static void report(struct verify *v, const char *path, enum cdm_verify_kind kind,
                   const char *detail)
{
    size_t *counter = kind == CDM_VERIFY_MISSING   ? &v->result->missing
                      : kind == CDM_VERIFY_CHANGED ? &v->result->changed
                                                   : &v->result->extra;
    (*counter)++;
    struct cdm_verify_issue issue = {v->id, path, kind, detail};
    if (v->fn)
        v->fn(v->arg, &issue);
}

static int hash_file(struct verify *v, const char *path, unsigned long long *size, char hex[65])
{
    struct fs_reader *r = NULL;
    uint64_t total = 0;
    int rc = fs_reader_open(v->ctx, path, &r, &total);
    if (rc)
        return rc;
    sha256_reset(v->hash);
    long long n;
    unsigned long long done = 0;
    while ((n = fs_reader_read(v->ctx, r, v->buf, VERIFY_BUF)) > 0) {
        sha256_update(v->hash, v->buf, (size_t)n);
        done += (unsigned long long)n;
    }
    fs_reader_close(r);
    if (n < 0)
        return (int)n;
    sha256_finish_hex(v->hash, hex);
    *size = done;
    return CDM_OK;
}

/* The permission bits (the executable bit above all) against those recorded at install;
 * a file recorded without them (by an older cdm, or on Windows) is counted, not judged. */
static void check_mode(struct verify *v, const struct db_file *f, const char *path)
{
    int mode = f->mode < 0 ? -1 : fs_file_mode(path);
    int read_only = f->mode < 0 ? fs_file_read_only(path) : -1;
    if (read_only == 1) {
        v->protected_seen = true;
    } else if (read_only == 0) {
        ALLOC_GROW(v->unprotected, v->nunprotected);
        v->unprotected[v->nunprotected++] = xstrdup(f->path);
    } else if (f->mode < 0 || mode < 0) {
        v->result->mode_unchecked++;
    } else if (mode != f->mode) {
        char *why = xasprintf("mode %04o, was %04o", (unsigned)mode, (unsigned)f->mode);
        report(v, f->path, CDM_VERIFY_CHANGED, why);
        free(why);
    }
}

/* db_files_each's reader for the first pass: the recorded regular files, in its order. */
static int collect_regular(void *arg, const struct db_file *f)
{
    struct verify *v = arg;
    if (f->link_target || !f->sha256)
        return CDM_OK;
    ALLOC_GROW(v->hashed, v->nhashed);
    v->hashed[v->nhashed++] =
        (struct file_hash){.path = path_join(v->dir, f->path), .expected = f->size};
    return CDM_OK;
}

static int check_recorded(void *arg, const struct db_file *f)
{
    struct verify *v = arg;
    if (v->nrecorded == v->cap)
        v->recorded = xrealloc(v->recorded, (v->cap = v->cap ? v->cap * 2 : 64) * sizeof(char *));
    v->recorded[v->nrecorded++] = xstrdup(f->path);
    v->result->files++;
    if (f->mode >= 0 && !f->link_target)
        v->sealed = v->sealed && !(f->mode & 0222);
    char *path = path_join(v->dir, f->path);
    enum fs_kind kind = fs_kind(path);
    int rc = CDM_OK;
    if (kind == FS_NONE) {
        report(v, f->path, CDM_VERIFY_MISSING, "recorded at install, not there now");
    } else if (f->link_target) {
        enum link_kind lk;
        char *target = NULL;
        if (kind != FS_LINK || link_read(v->ctx, path, &lk, &target) || lk != LINK_OURS) {
            report(v, f->path, CDM_VERIFY_CHANGED, "was a link, is not one now");
        } else if (strcmp(target, f->link_target)) {
            char *why = xasprintf("link points to '%s', was '%s'", target, f->link_target);
            report(v, f->path, CDM_VERIFY_CHANGED, why);
            free(why);
        }
        free(target);
    } else if (kind != FS_FILE) {
        report(v, f->path, CDM_VERIFY_CHANGED, "was a regular file, is not one now");
    } else {
        unsigned long long size = 0;
        char hex[65];
        const struct file_hash *pre = NULL;
        while (v->next_hashed < v->nhashed && !pre) {
            const struct file_hash *h = &v->hashed[v->next_hashed++];
            if (!strcmp(h->path, path))
                pre = h;
        }
        if (pre && pre->done) {
            size = pre->size;
            memcpy(hex, pre->hex, sizeof(hex));
        } else {
            rc = hash_file(v, path, &size, hex); /* again, one by one, to say why it fails */
        }
        if (rc == CDM_OK) {
            if (size != f->size) {
                char *why = xasprintf("%llu bytes, was %llu", size, f->size);
                report(v, f->path, CDM_VERIFY_CHANGED, why);
                free(why);
            } else if (f->sha256 && strcmp(hex, f->sha256)) {
                char *why = xasprintf("SHA-256 %.12s..., was %.12s...", hex, f->sha256);
                report(v, f->path, CDM_VERIFY_CHANGED, why);
                free(why);
            } else {
                check_mode(v, f, path);
            }
        }
    }
    free(path);
    return rc;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a Windows install that lost the read-only attribute every file of it was made
 * with (a hard link's attribute is the file's: clearing it on a link in an environment
 * clears it here). An install none of whose files has it predates that: counted only. */
static void report_unprotected(struct verify *v)
{
    for (size_t i = 0; i < v->nunprotected; i++) {
        if (v->protected_seen)
            report(v, v->unprotected[i], CDM_VERIFY_CHANGED,
                   "its read-only attribute was cleared (the store's files are read-only)");
        else
            v->result->mode_unchecked++;
        free(v->unprotected[i]);
    }
    free(v->unprotected);
    v->unprotected = NULL;
    v->nunprotected = 0;
    v->protected_seen = false;
}

/* A folder of a sealed install that has a write bit again: something could be added to it. */
static void check_folder_mode(struct verify *v, const char *dir, const char *rel)
{
    int mode = v->sealed ? fs_file_mode(dir) : -1;
    if (mode >= 0 && (mode & 0222)) {
        char *why = xasprintf("folder mode %04o, was %04o (no write bits)", (unsigned)mode,
                              (unsigned)mode & 07555u);
        report(v, rel ? rel : ".", CDM_VERIFY_CHANGED, why);
        free(why);
    }
}

/* Everything in the folder that is not recorded, depth first; links are not entered. *holds:
 * something recorded is below (the folder was installed, and its mode counts). */
static int find_extra(struct verify *v, const char *rel, bool *holds)
{
    char *dir = rel ? path_join(v->dir, rel) : xstrdup(v->dir);
    char **names = NULL;
    int rc = fs_list_dir(v->ctx, dir, &names);
    *holds = false;
    for (char **n = names; !rc && n && *n; n++) {
        char *child_rel = rel ? xasprintf("%s/%s", rel, *n) : xstrdup(*n);
        char *child = path_join(dir, *n);
        bool below = false;
        if (fs_kind(child) == FS_DIR) {
            rc = find_extra(v, child_rel, &below);
            *holds = *holds || below;
        } else if (!bsearch(&child_rel, v->recorded, v->nrecorded, sizeof(char *),
                            compare_strings)) {
            report(v, child_rel, CDM_VERIFY_EXTRA, "not installed by cdm");
        } else {
            *holds = true;
        }
        free(child);
        free(child_rel);
    }
    if (!rc && (*holds || !rel))
        check_folder_mode(v, dir, rel);
    strv_free(names);
    free(dir);
    return rc;
}

static int verify_one(cdm_ctx *ctx, const struct cdm_install_info *in, struct verify *v)
{
    if (in->state == CDM_INSTALL_INSTALLING || in->state == CDM_INSTALL_REMOVING) {
        /* Another cdm holds the store's lock and is moving this folder: nothing to judge. */
        cdm_warn(ctx, "%s not verified: another cdm is %s it; verify it when that is done", in->id,
                 cdm_install_state_name(in->state));
        return CDM_OK;
    }
    v->id = in->id;
    v->dir = in->path;
    v->result->installs++;
    if (fs_kind(in->path) != FS_DIR)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "cannot verify '%s': its folder '%s' is gone; reinstall it with "
                             "'cdm install --force ARCHIVE' or remove it with 'cdm remove %s'",
                             in->id, in->path, in->id);
    v->sealed = true; /* until a file recorded with a write bit says otherwise */
    /* an upstream's install: its own index records its files, read as they are */
    cdm_ctx *owner = ctx;
    int rc = upstream_owner(ctx, in, &owner);
    /* the regular files' bytes first, on every core; then the checks in the index's order */
    if (!rc)
        rc = db_files_each(owner, in->id, collect_regular, v);
    if (!rc)
        hash_files(v->hashed, v->nhashed, config_threads(&ctx->config));
    v->next_hashed = 0;
    if (!rc)
        rc = db_files_each(owner, in->id, check_recorded, v);
    report_unprotected(v);
    for (size_t i = 0; i < v->nhashed; i++)
        free(v->hashed[i].path);
    free(v->hashed);
    v->hashed = NULL;
    v->nhashed = 0;
    if (!rc) {
        if (v->nrecorded) /* qsort's array may not be NULL, even empty */
            qsort(v->recorded, v->nrecorded, sizeof(char *), compare_strings);
        bool holds;
        rc = find_extra(v, NULL, &holds);
    }
    for (size_t i = 0; i < v->nrecorded; i++)
        free(v->recorded[i]);
    free(v->recorded);
    v->recorded = NULL;
    v->nrecorded = v->cap = 0;
    return rc;
}

static void view_problem(void *arg, const char *path, const char *problem)
{
    report(arg, path, CDM_VERIFY_CHANGED, problem);
}

/* The views of the installs checked: whole, their links leading somewhere, each of the
 * install's files reached at its place (view.h). */
static int verify_views(cdm_ctx *ctx, const struct cdm_install_info *all, size_t n,
                        struct verify *v)
{
    char *dir = store_views_dir(ctx);
    char **names = NULL;
    int rc = fs_list_dir(ctx, dir, &names);
    free(dir);
    if (rc == CDM_ENOTFOUND)
        return CDM_OK;
    for (char **name = names; !rc && name && *name; name++) {
        size_t id_len = strcspn(*name, "+");
        for (size_t i = 0; i < n; i++) {
            if (strlen(all[i].id) != id_len || strncmp(all[i].id, *name, id_len))
                continue;
            char *toolkit = NULL; /* unknown when only another user's state records it */
            if ((rc = db_view_toolkit(ctx, *name, &toolkit)) == CDM_ENOTFOUND)
                rc = CDM_OK;
            v->id = *name;
            if (!rc)
                view_check(ctx, &all[i], toolkit, *name, view_problem, v);
            v->result->views++;
            free(toolkit);
        }
    }
    strv_free(names);
    return rc;
}

int cdm_verify(cdm_ctx *ctx, const char *spec, int cuda, cdm_verify_fn fn, void *arg,
               struct cdm_verify_result *result)
{
    memset(result, 0, sizeof(*result));
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    int rc;
    if (spec) {
        all = xmalloc(sizeof(*all));
        n = 1;
        rc = cdm_resolve(ctx, spec, cuda, all);
    } else {
        rc = cdm_list(ctx, &all, &n);
    }
    struct verify v = {.ctx = ctx, .fn = fn, .arg = arg, .result = result};
    if (!rc) {
        v.hash = sha256_new();
        v.buf = xmalloc(VERIFY_BUF);
    }
    for (size_t i = 0; !rc && i < n; i++)
        rc = verify_one(ctx, &all[i], &v);
    if (!rc)
        rc = verify_views(ctx, all, n, &v);
    if (v.hash)
        sha256_free(v.hash);
    free(v.buf);
    free(all);
    return rc;
}
