/*
 * cdm deploy VERSION --into TOOLKIT and cdm deploy --undo TOOLKIT: the manual recipe's
 * merge of cuDNN into a CUDA toolkit, done with a record. Here: check the pair; plan every
 * file (the install's include, lib and bin files, each to the toolkit's own folder for it);
 * before touching anything, make sure every folder can be written (a toolkit under Program
 * Files needs an elevated shell) and that no running program holds a file to be replaced
 * (Windows). The deploy itself, and its undo, are the deploy protocol (journal_deploy.c).
 */
#include "compat.h"
#include "db_deploy.h"
#include "deploy_files.h"
#include "journal_deploy.h"
#include "store.h"
#include "toolkit.h"
#include "platform/fs.h"
#include "platform/inuse.h"
#include "platform/link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The toolkit's folder for a kind of file: the first of the candidates it has. */
static const char *toolkit_sub(const char *toolkit, const char *const *candidates)
{
    for (const char *const *c = candidates; *c; c++) {
        char *p = path_join(toolkit, *c);
        bool found = fs_is_dir_followed(p);
        free(p);
        if (found)
            return *c;
    }
    return NULL;
}

/* Every file and link below src (rel: its path below src) planned to dest/rel. */
static int plan_tree(cdm_ctx *ctx, struct deploy_plan *p, const char *src, const char *dest,
                     const char *rel)
{
    char *dir = *rel ? path_join(src, rel) : xstrdup(src);
    char **names = NULL;
    int rc = fs_list_dir(ctx, dir, &names);
    for (char **n = names; !rc && n && *n; n++) {
        char *sub = *rel ? xasprintf("%s/%s", rel, *n) : xstrdup(*n);
        char *abs = path_join(dir, *n);
        enum fs_kind k = fs_kind(abs);
        if (k == FS_DIR) {
            rc = plan_tree(ctx, p, src, dest, sub);
        } else if (k == FS_FILE || k == FS_LINK) {
            ALLOC_GROW(p->files, p->n);
            ALLOC_GROW(p->from, p->n);
            struct db_deploy_file *f = &p->files[p->n];
            memset(f, 0, sizeof(*f));
            f->before_mode = -1;
            char *to = xasprintf("%s/%s", dest, sub);
            if (!copy_str(f->path, sizeof(f->path), to))
                rc =
                    cdm_error_set(ctx, CDM_EINVAL, "cannot deploy '%s': the path is too long", abs);
            free(to);
            p->from[p->n++] = abs;
            abs = NULL;
        }
        free(abs);
        free(sub);
    }
    strv_free(names);
    free(dir);
    return rc;
}

static const char *const include_dirs[] = {"include", NULL};
static const char *const lib_dirs[] = {"lib64", "lib/x64", "lib", NULL};
static const char *const bin_dirs[] = {"bin/x64", "bin", NULL};

static int make_plan(cdm_ctx *ctx, const struct cdm_install_info *in, const char *toolkit,
                     struct deploy_plan *p)
{
    const struct {
        const char *from;
        const char *const *to;
        const char *what;
    } parts[] = {
        {in->include_dir, include_dirs, "include"},
        {in->lib_dir, lib_dirs, "lib64, lib\\x64 or lib"},
        {in->bin_dir, bin_dirs, "bin"},
    };
    int rc = CDM_OK;
    for (size_t i = 0; !rc && i < CDM_ARRAY_LEN(parts); i++) {
        if (!*parts[i].from)
            continue;
        const char *dest = toolkit_sub(toolkit, parts[i].to);
        if (!dest)
            return cdm_error_set(ctx, CDM_ENOTFOUND,
                                 "cannot deploy into '%s': it has no %s folder; is it a CUDA "
                                 "toolkit?",
                                 toolkit, parts[i].what);
        char *src = path_join(in->path, parts[i].from);
        rc = plan_tree(ctx, p, src, dest, "");
        free(src);
    }
    return rc;
}

/* Before anything is touched: each target folder takes a new file, nothing in the way is
 * a folder, and (Windows) no program holds a file to be replaced. */
static int preflight(cdm_ctx *ctx, const char *toolkit, struct deploy_plan *p)
{
    int rc = CDM_OK;
    char **dests = xcalloc(p->n + 1, sizeof(*dests));
    size_t used = 0;
    for (size_t i = 0; !rc && i < p->n; i++) {
        char *dest = path_join(toolkit, p->files[i].path);
        enum fs_kind k = fs_kind(dest);
        if (k == FS_DIR || k == FS_OTHER)
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "cannot deploy: '%s' is a folder or special file where cuDNN has "
                               "a file; move it away (nothing was changed)",
                               dest);
        char *dir = path_dirname(dest);
        /* named as a temporary file of dest's: a kill here leaves what the next deploy's
         * (or any writer's) look at dest removes */
        fs_clean_stale_temps(ctx, dir, path_basename(dest));
        char *probe = xasprintf("%s.cdm-%llu.tmp", dest, (unsigned long long)fs_process_id());
        struct fs_file *f = NULL;
        if (!rc && fs_file_create(ctx, probe, false, &f) != CDM_OK) {
            cdm_error_wrap(ctx, CDM_EIO, "cannot deploy into '%s'", toolkit);
            rc = cdm_error_append(ctx, CDM_EIO,
                                  "; a toolkit under Program Files needs an elevated shell (Run "
                                  "as administrator), one owned by root needs sudo (nothing was "
                                  "changed)");
        } else if (!rc) {
            fs_file_close(ctx, f);
            fs_remove_file(ctx, probe);
        }
        free(probe);
        free(dir);
        if (k == FS_FILE)
            dests[used++] = dest;
        else
            free(dest);
    }
    char *holders = rc ? NULL : inuse_holders((const char *const *)dests, used);
    if (holders)
        rc = cdm_error_set(ctx, CDM_EBUSY,
                           "cannot deploy into '%s': its cuDNN files are in use by %s; close "
                           "them and try again (nothing was changed)",
                           toolkit, holders);
    free(holders);
    strv_free(dests);
    return rc;
}

/* The version the install is, and the pair checked against the tables. */
static int check_pair(cdm_ctx *ctx, const struct cdm_install_info *in,
                      const struct toolkit_info *tk, const char *toolkit, bool force)
{
    char why[512] = "";
    enum compat_verdict v =
        compat_install_toolkit(in->version, in->cuda, tk->version, why, sizeof(why));
    if (v != COMPAT_FAIL)
        return CDM_OK;
    if (force) {
        cdm_warn(ctx, "deploying %s into the CUDA %s toolkit '%s' anyway (--force): %s", in->id,
                 tk->version, toolkit, why);
        return CDM_OK;
    }
    return cdm_error_set(ctx, CDM_EMISMATCH,
                         "cannot deploy %s into the CUDA %s toolkit '%s': %s; choose a build "
                         "for this toolkit, or pass --force",
                         in->id, tk->version, toolkit, why);
}

static int fill(cdm_ctx *ctx, struct cdm_deploy_result *out, const char *id, const char *toolkit,
                const char *version)
{
    if (!copy_str(out->install_id, sizeof(out->install_id), id) ||
        !copy_str(out->toolkit_version, sizeof(out->toolkit_version), version))
        return cdm_error_set(ctx, CDM_EINVAL,
                             "the install id '%s' or the toolkit version '%s' "
                             "is longer than cdm keeps",
                             id, version);
    return copy_path(ctx, out->toolkit, sizeof(out->toolkit), toolkit);
}

int cdm_deploy(cdm_ctx *ctx, const struct cdm_deploy_request *req, struct cdm_deploy_result *out)
{
    memset(out, 0, sizeof(*out));
    struct cdm_install_info in;
    struct toolkit_info tk = {0};
    struct deploy_plan p = {0};
    struct db_deploy d = {0}, old;
    char *toolkit = fs_realpath(req->into);
    int rc;
    if (!toolkit) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "no toolkit folder '%s': no such folder", req->into);
        goto out;
    }
    if ((rc = store_open(ctx, STORE_WRITE, RECOVER_DEPLOYS | RECOVER_INSTALLS)) ||
        (rc = cdm_resolve(ctx, req->spec, req->cuda, &in)))
        goto out;
    char *root = fs_realpath(ctx->root);
    if (root && path_within(toolkit, root)) /* an install is never changed once recorded */
        rc = cdm_error_set(ctx, CDM_EINVAL,
                           "cannot deploy into '%s': it is inside the store '%s', whose "
                           "installs never change; deploy into a CUDA toolkit outside it",
                           toolkit, root);
    free(root);
    if (rc)
        goto out;
    if (!toolkit_in_dir(toolkit, "--into", &tk)) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "cannot deploy into '%s': no CUDA toolkit there (no version.json, "
                           "version.txt or bin/nvcc that tells its version)",
                           toolkit);
        goto out;
    }
    if ((rc = fill(ctx, out, in.id, toolkit, tk.version)))
        goto out;
    if ((rc = db_deploy_get(ctx, toolkit, &old)) != CDM_ENOTFOUND) {
        if (!rc && strcmp(old.install_id, in.id))
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "'%s' holds %s, deployed by cdm; run 'cdm deploy --undo %s' "
                               "first",
                               toolkit, old.install_id, toolkit);
        goto out; /* the same install: nothing to do */
    }
    COPY_STR_ARRAY(d.toolkit, out->toolkit);
    COPY_STR_ARRAY(d.install_id, in.id);
    COPY_STR_ARRAY(d.toolkit_version, tk.version);
    if ((rc = check_pair(ctx, &in, &tk, toolkit, req->force)) ||
        (rc = make_plan(ctx, &in, toolkit, &p)) || (rc = preflight(ctx, toolkit, &p)) ||
        (rc = journal_deploy(ctx, &d, &p, &out->replaced)))
        goto out;
    out->files = p.n;
    out->changed = !rc;
out:
    deploy_plan_free(&p);
    toolkit_free(&tk);
    free(toolkit);
    return rc;
}

/* Is every file the deploy placed still what it placed? An undo puts the toolkit's own
 * files back over them, and a change made since (an edited header, a library another
 * installer put there) would be lost without a copy. */
static int check_unchanged(cdm_ctx *ctx, const struct db_deploy *d, const char *toolkit)
{
    struct cdm_install_info in;
    struct deploy_plan p = {0};
    if (cdm_resolve(ctx, d->install_id, 0, &in) != CDM_OK)
        return CDM_OK; /* the install is gone: nothing to compare with */
    int rc = make_plan(ctx, &in, toolkit, &p);
    for (size_t i = 0; !rc && i < p.n; i++) {
        char *dest = path_join(toolkit, p.files[i].path);
        enum fs_kind now = fs_kind(dest), placed = fs_kind(p.from[i]);
        char have[65] = "", want[65] = "";
        bool changed = now != FS_NONE && now != placed;
        if (!changed && now == FS_FILE && placed == FS_FILE)
            changed = deploy_hash(ctx, dest, have) || deploy_hash(ctx, p.from[i], want) ||
                      strcmp(have, want);
        if (changed)
            rc = cdm_error_set(ctx, CDM_EEXISTS,
                               "cannot undo the deploy into '%s': '%s' was changed after the "
                               "deploy, and the undo would overwrite it without a copy; keep a "
                               "copy of it, then run 'cdm deploy --undo %s --force'",
                               toolkit, dest, toolkit);
        free(dest);
    }
    deploy_plan_free(&p);
    return rc;
}

int cdm_deploy_undo(cdm_ctx *ctx, const char *dir, bool force, struct cdm_deploy_result *out)
{
    memset(out, 0, sizeof(*out));
    struct db_deploy d;
    struct db_deploy_file *files = NULL;
    size_t n = 0;
    char *toolkit = fs_realpath(dir);
    int rc = CDM_OK;
    if (!toolkit) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "no toolkit folder '%s': no such folder", dir);
        goto out;
    }
    if ((rc = store_open(ctx, STORE_WRITE, RECOVER_DEPLOYS | RECOVER_INSTALLS)))
        goto out;
    if ((rc = db_deploy_get(ctx, toolkit, &d)) == CDM_ENOTFOUND) {
        rc = fill(ctx, out, "", toolkit, ""); /* nothing deployed there: nothing to undo */
        goto out;
    }
    if (rc || (rc = db_deploy_files(ctx, d.id, &files, &n)))
        goto out;
    if ((rc = fill(ctx, out, d.install_id, toolkit, d.toolkit_version)))
        goto out;
    for (size_t i = 0; i < n; i++)
        out->replaced += strcmp(files[i].before_kind, "none") != 0;
    out->files = n;
    if (!force && (rc = check_unchanged(ctx, &d, toolkit)))
        goto out;
    if (!(rc = journal_deploy_undo(ctx, &d)))
        out->changed = true;
out:
    free(files);
    free(toolkit);
    return rc;
}
