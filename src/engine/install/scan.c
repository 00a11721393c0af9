/*
 * cdm scan: every copy of cuDNN on the machine, read only. Where users have copies: the
 * Python environments under the home folder (venvs with their pyvenv.cfg, conda
 * environments with their conda-meta) and [scan] paths, the CUDA toolkits the system
 * knows, the system's own folders (/usr, NVIDIA's Windows installer's tree). Each copy is
 * found as cdm install DIR would take it (folder.c), and compared with the store: its
 * libraries are hashed only where an install has a library of the same name and size, so
 * that a scan of copies the store does not have reads no library whole.
 */
#include "entry_check.h"
#include "upstream.h"
#include "folder.h"
#include "header.h"
#include "install.h"
#include "store.h"
#include "version.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "platform/sha256.h"
#include "platform/toolkit_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How deep below the home folder environments are looked for: ~/projects/x/.venv is 3. */
#define HOME_DEPTH 4

/* The store's libraries: each install's by name and size, and its hashes. */
struct known {
    struct cdm_install_info *installs;
    size_t count;
    struct strmap *names;  /* per install: its libraries' sizes, in decimal */
    struct strmap *hashes; /* per install: sha256 */
};

struct scan {
    cdm_ctx *ctx;
    struct known known;
    struct cdm_scan_copy *copies;
    size_t count;
    char **seen; /* roots already reported (real paths), NULL-terminated */
    size_t seen_n;
};

static bool is_library(const char *name)
{
    return (str_starts_with(name, "libcudnn") && strstr(name, ".so")) ||
           (str_starts_with_icase(name, "cudnn") && str_ends_with_icase(name, ".dll"));
}

static int keep_known(void *arg, const struct db_file *f)
{
    struct strmap **maps = arg;
    if (!f->sha256 || f->link_target || !is_library(path_basename(f->path)))
        return CDM_OK;
    char *key = xasprintf("%llu", (unsigned long long)f->size);
    bool added;
    strmap_put(maps[0], key, strlen(key), 0, &added);
    strmap_put(maps[1], f->sha256, strlen(f->sha256), 0, &added);
    free(key);
    return CDM_OK;
}

static int known_load(cdm_ctx *ctx, struct known *k)
{
    int rc = cdm_list(ctx, &k->installs, &k->count);
    if (rc == CDM_ENOTFOUND)
        return CDM_OK; /* no store yet: every copy is one the store lacks */
    k->names = xcalloc(k->count + 1, sizeof(*k->names));
    k->hashes = xcalloc(k->count + 1, sizeof(*k->hashes));
    for (size_t i = 0; i < k->count && !rc; i++) {
        struct strmap *maps[2] = {&k->names[i], &k->hashes[i]};
        cdm_ctx *owner; /* an upstream's install: recorded in its own index */
        if (upstream_owner(ctx, &k->installs[i], &owner) == CDM_OK)
            rc = db_files_each(owner, k->installs[i].id, keep_known, maps);
    }
    return rc;
}

static void known_free(struct known *k)
{
    for (size_t i = 0; i < k->count; i++) {
        strmap_free(&k->names[i]);
        strmap_free(&k->hashes[i]);
    }
    free(k->names);
    free(k->hashes);
    free(k->installs);
}

static bool hash_file(const char *path, char out[65])
{
    struct cdm_ctx quiet = {0}; /* an unreadable copy is reported as not the store's */
    struct fs_reader *r;
    uint64_t size;
    if (fs_reader_open(&quiet, path, &r, &size)) {
        error_state_free(&quiet.err);
        return false;
    }
    struct sha256 *h = sha256_new();
    unsigned char *buf = xmalloc(1 << 20);
    long long got;
    while ((got = fs_reader_read(&quiet, r, buf, 1 << 20)) > 0)
        sha256_update(h, buf, (size_t)got);
    sha256_finish_hex(h, out);
    sha256_free(h);
    free(buf);
    fs_reader_close(r);
    error_state_free(&quiet.err);
    return got == 0;
}

static uint64_t file_size(const char *path)
{
    struct cdm_ctx quiet = {0};
    struct fs_reader *r;
    uint64_t size = 0;
    if (!fs_reader_open(&quiet, path, &r, &size))
        fs_reader_close(r);
    error_state_free(&quiet.err);
    return size;
}

/* A link to a name beside it is counted through that name's file. */
static bool link_beside(cdm_ctx *ctx, const char *path, char **target)
{
    enum link_kind kind;
    *target = NULL;
    return fs_kind(path) == FS_LINK && !link_read(ctx, path, &kind, target) && *target &&
           !link_name_check(*target);
}

/* The copy's libraries against the store's installs: the first install that holds every
 * one of them (by content) is the copy's twin. */
static void compare(struct scan *s, const char *root, const struct folder_file *files, size_t n,
                    struct cdm_scan_copy *c)
{
    const struct known *k = &s->known;
    bool *holds = xcalloc(k->count + 1, sizeof(*holds));
    for (size_t i = 0; i < k->count; i++)
        holds[i] = true;
    unsigned libraries = 0;
    char *store = fs_realpath(s->ctx->root);
    for (size_t f = 0; f < n; f++) {
        char *path = path_join(root, files[f].from), *target = NULL;
        bool beside = link_beside(s->ctx, path, &target);
        char *real = target && !beside ? fs_realpath(path) : NULL;
        if (real && store && path_within(real, store)) {
            /* cdm attach's link, through the project's link, into an install: it takes
             * no room, and it is that install's file */
            c->attached = true;
            for (size_t i = 0; i < k->count && !c->same_as[0]; i++)
                if (path_within(real, k->installs[i].path))
                    copy_text(c->same_as, sizeof(c->same_as), k->installs[i].id);
            beside = true;
        }
        free(real);
        uint64_t size = beside ? 0 : file_size(path);
        c->size += size;
        c->files++;
        if (!beside && is_library(path_basename(files[f].from))) {
            libraries++;
            char key[32], sha[65] = "";
            snprintf(key, sizeof(key), "%llu", (unsigned long long)size);
            for (size_t i = 0; i < k->count; i++) {
                if (!holds[i])
                    continue;
                if (!strmap_get(&k->names[i], key, strlen(key)) ||
                    (!sha[0] && !hash_file(path, sha)) ||
                    !strmap_get(&k->hashes[i], sha, strlen(sha)))
                    holds[i] = false;
            }
        }
        free(target);
        free(path);
    }
    for (size_t i = 0; i < k->count && libraries && !c->same_as[0]; i++)
        if (holds[i])
            copy_text(c->same_as, sizeof(c->same_as), k->installs[i].id);
    free(holds);
    free(store);
}

/* The version a copy says: its wheel's (9.1.0.70), else its headers' (9.1.0). */
static void copy_version(const struct folder *f, const struct folder_file *files, size_t n,
                         struct cdm_scan_copy *c)
{
    if (f->has_wheel) {
        version_format(&f->wheel.version, c->version, sizeof(c->version));
        c->cuda = f->wheel.cuda_major;
        return;
    }
    c->cuda = f->sub ? atoi(f->sub) : 0;
    for (size_t i = 0; i < n && !c->version[0]; i++) {
        if (!folder_is_version_header(files[i].to))
            continue;
        char *path = path_join(f->root, files[i].from);
        struct strbuf text = STRBUF_INIT;
        int major, minor, patch;
        if (fs_read_file(path, 1 << 20, &text) &&
            cudnn_header_version(text.buf, text.len, &major, &minor, &patch))
            snprintf(c->version, sizeof(c->version), "%d.%d.%d", major, minor, patch);
        sb_free(&text);
        free(path);
    }
}

/* A folder that may hold cuDNN, kind the place it was found as ("venv", "toolkit"...). */
static void examine(struct scan *s, const char *dir, const char *kind)
{
    struct cdm_ctx quiet = {0}; /* a folder without cuDNN is no error for a scan */
    struct folder f;
    struct folder_file *files = NULL;
    size_t n = 0;
    char *real = NULL;
    if (folder_locate(&quiet, dir, 0, &f) || !(real = fs_realpath(f.root)))
        goto out;
    for (size_t i = 0; i < s->seen_n; i++)
        if (!strcmp(s->seen[i], real))
            goto out;
    s->seen = xrealloc(s->seen, (s->seen_n + 2) * sizeof(char *));
    s->seen[s->seen_n++] = xstrdup(real);
    s->seen[s->seen_n] = NULL;
    folder_list(&f, &files, &n);
    if (!n)
        goto out;
    s->copies = xrealloc(s->copies, (s->count + 1) * sizeof(*s->copies));
    struct cdm_scan_copy *c = &s->copies[s->count++];
    memset(c, 0, sizeof(*c));
    copy_text(c->path, sizeof(c->path), f.root);
    copy_text(c->kind, sizeof(c->kind),
              f.conda       ? "conda"
              : f.has_wheel ? "wheel"
              : f.sub       ? "installer"
                            : kind);
    copy_version(&f, files, n, c);
    compare(s, f.root, files, n, c);
out:
    folder_files_free(files, n);
    folder_free(&f);
    free(real);
    error_state_free(&quiet.err);
}

static bool skipped_dir(const char *name)
{
    static const char *const skip[] = {".cache",  ".git",  "node_modules", ".npm", ".cargo",
                                       ".rustup", ".wine", "__pycache__",  "proc"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(skip); i++)
        if (!strcmp(name, skip[i]))
            return true;
    return false;
}

/* Python environments below dir: a venv (pyvenv.cfg) or a conda environment (conda-meta)
 * is examined and not entered, but for a conda base's envs/. */
static void walk_envs(struct scan *s, const char *dir, int depth)
{
    char *cfg = path_join(dir, "pyvenv.cfg"), *meta = path_join(dir, "conda-meta");
    bool venv = fs_kind(cfg) == FS_FILE, conda = fs_kind(meta) == FS_DIR;
    free(cfg);
    free(meta);
    if (venv || conda) {
        examine(s, dir, venv ? "venv" : "conda");
        if (venv)
            return;
    }
    if (depth <= 0)
        return;
    char **names = fs_list_names(dir);
    for (char **n = names; n && *n; n++) {
        char *sub = path_join(dir, *n);
        if (!skipped_dir(*n) && fs_kind(sub) == FS_DIR)
            walk_envs(s, sub, depth - 1);
        free(sub);
    }
    strv_free(names);
}

/* The system's own places: /usr (NVIDIA's Debian and RPM packages) and /usr/local, or
 * NVIDIA's installer's folders in Program Files. */
static void examine_system(struct scan *s)
{
    if (!fs_host_is_windows()) {
        examine(s, "/usr", "system");
        examine(s, "/usr/local", "system");
        return;
    }
    char *programs = fs_getenv("ProgramFiles");
    char *dir = path_join(programs && *programs ? programs : "C:\\Program Files", "NVIDIA\\CUDNN");
    char **names = fs_list_names(dir);
    for (char **n = names; n && *n; n++) {
        char *tree = path_join(dir, *n);
        examine(s, tree, "installer");
        free(tree);
    }
    strv_free(names);
    free(dir);
    free(programs);
}

int cdm_scan(cdm_ctx *ctx, const char *const *paths, size_t path_count, struct cdm_scan_copy **out,
             size_t *count)
{
    struct scan s = {.ctx = ctx};
    *out = NULL;
    *count = 0;
    int rc = known_load(ctx, &s.known);
    if (rc)
        goto out;
    for (size_t i = 0; i < path_count; i++) {
        examine(&s, paths[i], "folder");
        walk_envs(&s, paths[i], HOME_DEPTH);
    }
    for (size_t i = 0; i < ctx->config.scan_path_count; i++)
        walk_envs(&s, ctx->config.scan_paths[i], HOME_DEPTH);
    if (!path_count) {
        char *home = fs_getenv(fs_host_is_windows() ? "USERPROFILE" : "HOME");
        if (home && *home) {
            char *local = path_join(home, ".local"); /* pip install --user */
            examine(&s, local, "user site");
            free(local);
            walk_envs(&s, home, HOME_DEPTH);
        }
        free(home);
        struct toolkit_place *places;
        size_t n = toolkit_host_places(&places);
        for (size_t i = 0; i < n; i++)
            examine(&s, places[i].dir, "toolkit");
        toolkit_places_free(places, n);
        examine_system(&s);
    }
    *out = s.copies;
    *count = s.count;
    s.copies = NULL;
out:
    free(s.copies);
    strv_free(s.seen);
    known_free(&s.known);
    return rc;
}
