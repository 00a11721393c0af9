/*
 * cdm doctor: layered checks of why a project's cuDNN does or does not load. The checks
 * run in the order of the table at the bottom (store, library, dependencies, shadowing,
 * driver and toolkit, then the platform's own); each appends results to the report and
 * never prints. Later layers read what earlier ones found from struct doctor.
 */
#include "compat.h"
#include "db.h"
#include "doctor.h"
#include "store.h"
#include "store_paths.h"
#include "platform/fs.h"
#include "platform/loader.h"
#include "version.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct doctor {
    cdm_ctx *ctx;
    struct cdm_doctor_report *report;
    bool store_exists;
    bool have_project;
    struct cdm_project project;
    bool have_install;
    struct cdm_install_info install;
    int major, minor, patch; /* the install's version */
    bool native;             /* the install is for this machine's platform */
    char lib_dir[4096];      /* where its libraries are: lib (POSIX) or bin (Windows) */
    char main_lib[4096];     /* libcudnn.so.<major> / cudnn64_<major>.dll */
    char **libs;             /* the install's cuDNN library names, NULL-terminated */
    struct loader_lib *lib;
    long cudart; /* cudnnGetCudartVersion(), 0 when unknown */
    bool driver_probed;
    struct driver_info driver;
    bool have_toolkit;
    int tk_major, tk_minor;
    char tk_version[64];
    char tk_source[4200];
};

const char *cdm_check_status_name(enum cdm_check_status status)
{
    static const char *const names[] = {"ok", "warn", "fail", "skip"};
    return (unsigned)status < CDM_ARRAY_LEN(names) ? names[status] : "?";
}

void doctor_add(struct doctor *d, const char *name, enum cdm_check_status status, const char *fix,
                const char *detail_fmt, ...)
{
    struct cdm_doctor_report *r = d->report;
    r->checks = xrealloc(r->checks, (r->count + 1) * sizeof(*r->checks));
    struct cdm_check *c = &r->checks[r->count++];
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, detail_fmt);
    sb_vaddf(&sb, detail_fmt, ap);
    va_end(ap);
    c->name = xstrdup(name);
    c->status = status;
    c->detail = sb_detach(&sb);
    c->fix = fix && (status == CDM_CHECK_FAIL || status == CDM_CHECK_WARN) ? xstrdup(fix) : NULL;
}

cdm_ctx *doctor_ctx(struct doctor *d)
{
    return d->ctx;
}

const char *doctor_store_root(struct doctor *d)
{
    return cdm_root(d->ctx);
}

void cdm_doctor_report_free(struct cdm_doctor_report *r)
{
    for (size_t i = 0; i < r->count; i++) {
        free(r->checks[i].name);
        free(r->checks[i].detail);
        free(r->checks[i].fix);
    }
    free(r->checks);
    memset(r, 0, sizeof(*r));
}

static bool is_windows(const char *platform)
{
    return str_starts_with(platform, "windows");
}

/* ---- layer 1: the store and the project --------------------------------------------- */

static void check_index(struct doctor *d)
{
    if (!d->store_exists) {
        doctor_add(d, "store.index", CDM_CHECK_SKIP, NULL, "no store at '%s' yet",
                   cdm_root(d->ctx));
        return;
    }
    sqlite3_stmt *st = NULL;
    struct strbuf problems = STRBUF_INIT;
    int n = 0;
    if (sqlite3_prepare_v2(d->ctx->db, "PRAGMA integrity_check(5)", -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *row = (const char *)sqlite3_column_text(st, 0);
            if (row && strcmp(row, "ok"))
                sb_addf(&problems, "%s%s", n++ ? "; " : "", row);
        }
        sqlite3_finalize(st);
    } else {
        sb_add(&problems, sqlite3_errmsg(d->ctx->db));
        n = 1;
    }
    char *db = path_join(cdm_root(d->ctx), "cdm.db");
    if (n)
        doctor_add(d, "store.index", CDM_CHECK_FAIL,
                   "copy the index aside, then restore it from a backup; the version folders "
                   "are intact and can be installed again into a fresh store",
                   "the index '%s' fails SQLite's integrity check: %s", db, sb_str(&problems));
    else
        doctor_add(d, "store.index", CDM_CHECK_OK, NULL,
                   "the index '%s' passes SQLite's integrity check", db);
    free(db);
    sb_free(&problems);
}

static void check_leftovers(struct doctor *d)
{
    if (!d->store_exists) {
        doctor_add(d, "store.leftovers", CDM_CHECK_SKIP, NULL, "no store yet");
        return;
    }
    char **pending = NULL, **staged = NULL;
    char *staging = store_staging_dir(d->ctx);
    db_install_pending(d->ctx, &pending);
    if (fs_kind(staging) == FS_DIR)
        fs_list_dir(d->ctx, staging, &staged);
    struct strbuf sb = STRBUF_INIT;
    size_t n = 0;
    for (char **p = pending; p && *p; p++, n++)
        sb_addf(&sb, "%sunfinished install %s", n ? ", " : "", *p);
    for (char **p = staged; p && *p; p++, n++)
        sb_addf(&sb, "%s.staging/%s", n ? ", " : "", *p);
    if (n)
        doctor_add(d, "store.leftovers", CDM_CHECK_WARN, "run 'cdm gc'",
                   "%u leftover(s) of interrupted work: %s", (unsigned)n, sb_str(&sb));
    else
        doctor_add(d, "store.leftovers", CDM_CHECK_OK, NULL, "no leftovers of interrupted work");
    sb_free(&sb);
    cdm_strv_free(pending);
    cdm_strv_free(staged);
    free(staging);
}

/* Every recorded install has its folder. */
static void check_installs(struct doctor *d)
{
    if (!d->store_exists)
        return;
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    if (cdm_list(d->ctx, &all, &n) != CDM_OK) {
        doctor_add(d, "store.installs", CDM_CHECK_FAIL, NULL, "%s", cdm_error_message(d->ctx));
        return;
    }
    struct strbuf gone = STRBUF_INIT;
    size_t missing = 0;
    for (size_t i = 0; i < n; i++)
        if (fs_kind(all[i].path) != FS_DIR)
            sb_addf(&gone, "%s%s", missing++ ? ", " : "", all[i].id);
    if (missing) {
        char *fix = xasprintf("remove the record with 'cdm remove ID', or install the archive "
                              "again with 'cdm install ARCHIVE --force'");
        doctor_add(d, "store.installs", CDM_CHECK_FAIL, fix,
                   "%u of %u installs have no folder in the store: %s", (unsigned)missing,
                   (unsigned)n, sb_str(&gone));
        free(fix);
    } else {
        doctor_add(d, "store.installs", CDM_CHECK_OK, NULL, "%u install(s), each with its folder",
                   (unsigned)n);
    }
    sb_free(&gone);
    free(all);
}

static bool installed(struct doctor *d, const char *id, struct cdm_install_info *out)
{
    struct cdm_install_info tmp;
    char state[16] = "";
    if (!d->store_exists || !*id)
        return false;
    int rc = db_install_get(d->ctx, id, out ? out : &tmp, state);
    return rc == CDM_OK && !strcmp(state, "ok");
}

static void check_project(struct doctor *d)
{
    if (!d->have_project) {
        doctor_add(d, "project", CDM_CHECK_SKIP, NULL,
                   "no project here (no '%s' link or %s pin file in this folder or above)",
                   cdm_link_name(d->ctx), CDM_PIN_FILE);
        return;
    }
    const struct cdm_project *p = &d->project;
    char *fix = NULL;
    if (p->link_foreign) {
        fix = xasprintf("move '%s' away, then run 'cdm link %s'", p->link_path, p->path);
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix,
                   "'%s' is a real file or folder, not a link cdm made", p->link_path);
    } else if (!p->has_link) {
        fix = xasprintf("run 'cdm link %s%s%s'", p->path, p->has_pin ? "" : " ",
                        p->has_pin ? "" : "VERSION");
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix, "there is no link '%s'", p->link_path);
    } else if (!*p->linked_id) {
        fix = xasprintf("run 'cdm link %s VERSION' to point it into the store '%s'", p->path,
                        cdm_root(d->ctx));
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix,
                   "'%s' points to '%s', which is not a version folder of the store '%s'",
                   p->link_path, p->target, cdm_root(d->ctx));
    } else if (!installed(d, p->linked_id, NULL)) {
        fix = xasprintf("run 'cdm install' for %s, or 'cdm link %s VERSION' for another one",
                        p->linked_id, p->path);
        doctor_add(d, "project.link", CDM_CHECK_FAIL, fix,
                   "'%s' points to %s, which is not installed", p->link_path, p->linked_id);
    } else {
        doctor_add(d, "project.link", CDM_CHECK_OK, NULL, "'%s' points to %s", p->link_path,
                   p->linked_id);
    }
    free(fix);
    fix = NULL;

    if (!p->has_pin) {
        fix = xasprintf("run 'cdm link %s %s' to write it, and commit it", p->path,
                        *p->linked_id ? p->linked_id : "VERSION");
        doctor_add(d, "project.pin", CDM_CHECK_WARN, fix,
                   "no %s pin file: a fresh clone cannot get the same version", CDM_PIN_FILE);
    } else if (*p->linked_id && strcmp(p->pinned_id, p->linked_id)) {
        fix = xasprintf("run 'cdm link %s' to follow the pin, or 'cdm link %s %s' to move the "
                        "pin",
                        p->path, p->path, p->linked_id);
        doctor_add(d, "project.pin", CDM_CHECK_FAIL, fix,
                   "the pin says %s but the link points to %s", p->pinned_id, p->linked_id);
    } else if (!installed(d, p->pinned_id, NULL)) {
        fix = xasprintf("run 'cdm install' for %s", p->pinned_id);
        doctor_add(d, "project.pin", CDM_CHECK_FAIL, fix, "the pin says %s, which is not installed",
                   p->pinned_id);
    } else {
        doctor_add(d, "project.pin", CDM_CHECK_OK, NULL, "the pin says %s", p->pinned_id);
    }
    free(fix);
    fix = NULL;

    /* The newest generation cdm recorded must be what the link shows. */
    sqlite3_stmt *st = NULL;
    long long gen = -1;
    char gen_id[64] = "";
    if (d->store_exists &&
        sqlite3_prepare_v2(d->ctx->db,
                           "SELECT generation, install_id FROM generations WHERE project = ?1 "
                           "ORDER BY generation DESC LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, p->path, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            gen = sqlite3_column_int64(st, 0);
            const unsigned char *id = sqlite3_column_text(st, 1);
            copy_str(gen_id, sizeof(gen_id), id ? (const char *)id : "");
        }
        sqlite3_finalize(st);
    }
    if (gen < 0) {
        fix = xasprintf("run 'cdm link %s %s' so that cdm records it", p->path,
                        *p->linked_id ? p->linked_id : "VERSION");
        doctor_add(d, "project.history", CDM_CHECK_WARN, fix,
                   "no generation recorded for this project: the link was made outside cdm");
    } else if (strcmp(gen_id, p->linked_id)) {
        fix = xasprintf("run 'cdm link %s' to make the link match the pin and record it", p->path);
        doctor_add(d, "project.history", CDM_CHECK_FAIL, fix,
                   "generation %lld records %s but the link shows %s", gen,
                   *gen_id ? gen_id : "no link", *p->linked_id ? p->linked_id : "no store version");
    } else {
        doctor_add(d, "project.history", CDM_CHECK_OK, NULL, "generation %lld records %s", gen,
                   gen_id);
    }
    free(fix);
}

/* ---- layer 2: the library ------------------------------------------------------------ */

static bool need_install(struct doctor *d, const char *name)
{
    if (!d->have_install) {
        doctor_add(d, name, CDM_CHECK_SKIP, NULL, "no cuDNN install to examine");
        return false;
    }
    if (!d->native) {
        doctor_add(d, name, CDM_CHECK_SKIP, NULL,
                   "%s is for %s and this machine is %s; run cdm doctor there", d->install.id,
                   d->install.platform, cdm_host_platform());
        return false;
    }
    return true;
}

static void driver_probe(struct doctor *d)
{
    if (!d->driver_probed) {
        loader_driver(&d->driver);
        d->driver_probed = true;
    }
}

static void check_load(struct doctor *d)
{
    if (!need_install(d, "library.load"))
        return;
    if (fs_kind(d->main_lib) == FS_NONE) {
        char *fix =
            xasprintf("run 'cdm verify %s'; install its archive again with --force", d->install.id);
        doctor_add(d, "library.load", CDM_CHECK_FAIL, fix, "%s has no '%s'", d->install.id,
                   d->main_lib);
        free(fix);
        return;
    }
    char *why = NULL;
    d->lib = loader_open(d->main_lib, &why);
    if (!d->lib) {
        doctor_add(d, "library.load", CDM_CHECK_FAIL,
                   "see the deps.* checks below for the library that is missing",
                   "cannot load '%s': %s", d->main_lib, why);
        free(why);
        return;
    }
    doctor_add(d, "library.load", CDM_CHECK_OK, NULL, "loaded '%s'", d->main_lib);
}

typedef size_t (*size_fn)(void);
typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef const char *(*error_string_fn)(int);

static void check_version(struct doctor *d)
{
    if (!d->lib) {
        doctor_add(d, "library.version", CDM_CHECK_SKIP, NULL, "the library did not load");
        return;
    }
    size_fn get = (size_fn)loader_sym(d->lib, "cudnnGetVersion");
    if (!get) {
        doctor_add(d, "library.version", CDM_CHECK_FAIL,
                   "the file is not cuDNN's main library; install the archive again",
                   "'%s' has no cudnnGetVersion", d->main_lib);
        return;
    }
    long v = (long)get();
    int ma, mi, pa;
    cudnn_version_decode(v, &ma, &mi, &pa);
    if (ma != d->major || mi != d->minor || pa != d->patch) {
        char *fix = xasprintf("the store folder was changed: run 'cdm verify %s' and install "
                              "its archive again with --force",
                              d->install.id);
        doctor_add(d, "library.version", CDM_CHECK_FAIL, fix,
                   "cudnnGetVersion() = %ld (%d.%d.%d) but the install is %s", v, ma, mi, pa,
                   d->install.version);
        free(fix);
        return;
    }
    doctor_add(d, "library.version", CDM_CHECK_OK, NULL,
               "cudnnGetVersion() = %ld (%d.%d.%d), as installed (%s)", v, ma, mi, pa,
               d->install.version);
}

static void check_cudart(struct doctor *d)
{
    size_fn get = d->lib ? (size_fn)loader_sym(d->lib, "cudnnGetCudartVersion") : NULL;
    if (!get) {
        doctor_add(d, "library.cudart", CDM_CHECK_SKIP, NULL,
                   d->lib ? "no cudnnGetCudartVersion in the library" : "the library did not load");
        return;
    }
    d->cudart = (long)get();
    int ma = (int)(d->cudart / 1000), mi = (int)(d->cudart % 1000 / 10);
    if (ma != d->install.cuda)
        doctor_add(d, "library.cudart", CDM_CHECK_WARN,
                   "check that the archive is the variant its name says",
                   "cudnnGetCudartVersion() = %ld: built with CUDA %d.%d, but installed as cuda%d",
                   d->cudart, ma, mi, d->install.cuda);
    else
        doctor_add(d, "library.cudart", CDM_CHECK_OK, NULL,
                   "cudnnGetCudartVersion() = %ld: built with CUDA %d.%d", d->cudart, ma, mi);
}

static const char *status_fix(const char *name)
{
    if (strstr(name, "NOT_INITIALIZED"))
        return "the GPU or driver is not usable: check 'nvidia-smi' and the driver checks below";
    if (strstr(name, "ARCH_MISMATCH"))
        return "this GPU is too old for this cuDNN; use an older cuDNN release";
    if (strstr(name, "SUBLIBRARY") || strstr(name, "LOADING"))
        return "a cuDNN sub-library failed to load: see the deps.* checks";
    if (strstr(name, "LICENSE"))
        return "cuDNN's licence check failed; install the archive again";
    return "see the driver and toolkit checks below";
}

static void check_handle(struct doctor *d)
{
    create_fn create = d->lib ? (create_fn)loader_sym(d->lib, "cudnnCreate") : NULL;
    destroy_fn destroy = d->lib ? (destroy_fn)loader_sym(d->lib, "cudnnDestroy") : NULL;
    error_string_fn name_of =
        d->lib ? (error_string_fn)loader_sym(d->lib, "cudnnGetErrorString") : NULL;
    if (!create || !destroy) {
        doctor_add(d, "library.handle", CDM_CHECK_SKIP, NULL,
                   d->lib ? "no cudnnCreate/cudnnDestroy in the library"
                          : "the library did not load");
        return;
    }
    void *handle = NULL;
    int status = create(&handle);
    const char *name = name_of ? name_of(status) : NULL;
    char buf[32];
    if (!name) {
        snprintf(buf, sizeof(buf), "status %d", status);
        name = buf;
    }
    if (status == 0) {
        destroy(handle);
        doctor_add(d, "library.handle", CDM_CHECK_OK, NULL,
                   "cudnnCreate() succeeded (%s); cudnnDestroy() done", name);
        return;
    }
    driver_probe(d);
    if (!d->driver.found)
        doctor_add(d, "library.handle", CDM_CHECK_WARN,
                   "run on a machine with an NVIDIA GPU and its driver",
                   "no GPU here (no NVIDIA driver found): cudnnCreate() returned %s (%d)", name,
                   status);
    else
        doctor_add(d, "library.handle", CDM_CHECK_FAIL, status_fix(name),
                   "cudnnCreate() returned %s (%d)", name, status);
}

/* ---- layer 3: dependencies ----------------------------------------------------------- */

struct origin_row {
    const char *prefix; /* of the library name, compared without case */
    const char *what;
    bool toolkit; /* comes with the CUDA toolkit */
};

static const struct origin_row origins[] = {
    {"libcublasLt", "cuBLASLt, from the CUDA toolkit", true},
    {"cublasLt64_", "cuBLASLt, from the CUDA toolkit", true},
    {"libcublas", "cuBLAS, from the CUDA toolkit", true},
    {"cublas64_", "cuBLAS, from the CUDA toolkit", true},
    {"libnvrtc", "NVRTC, from the CUDA toolkit", true},
    {"nvrtc64_", "NVRTC, from the CUDA toolkit", true},
    {"libcudart", "the CUDA runtime, from the CUDA toolkit", true},
    {"cudart64_", "the CUDA runtime, from the CUDA toolkit", true},
    {"libnvJitLink", "nvJitLink, from the CUDA toolkit", true},
    {"nvJitLink", "nvJitLink, from the CUDA toolkit", true},
    {"libcuda.so", "the NVIDIA driver", false},
    {"nvcuda.dll", "the NVIDIA driver", false},
    {"libnvidia-ml", "the NVIDIA driver", false},
    {"zlibwapi.dll",
     "zlib's zlibwapi.dll, which cuDNN 8.3 to 9.1 on Windows needs and does not "
     "ship",
     false},
    {"libz.so", "zlib (package zlib1g)", false},
    {"libcudnn", "this cuDNN install itself: a file is missing", false},
    {"cudnn", "this cuDNN install itself: a file is missing", false},
    {"libstdc++", "the C++ runtime (package libstdc++6)", false},
    {"libgcc_s", "the GCC runtime (package libgcc-s1)", false},
    {"vcruntime", "the Microsoft Visual C++ Redistributable", false},
    {"msvcp", "the Microsoft Visual C++ Redistributable", false},
};

static bool prefix_icase(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
            return false;
    return true;
}

static const struct origin_row *origin_of(const char *name)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(origins); i++)
        if (prefix_icase(name, origins[i].prefix))
            return &origins[i];
    return NULL;
}

static bool same_machine(const char *path, const struct bin_imports *want)
{
    if (!want || want->format != BIN_ELF)
        return true; /* Windows skips wrong-machine DLLs too, but reports them; keep it simple */
    FILE *f = loader_fopen(path);
    if (!f)
        return false;
    struct bin_imports im;
    const char *why = elf_read_imports(f, &im);
    fclose(f);
    bool same = !why && im.machine == want->machine && im.bits == want->bits;
    if (!why)
        bin_imports_free(&im);
    return same;
}

/* Where the loader would find name: the path (malloc'd) and the step's origin; NULL when
 * nowhere. start: the first step to look at; *step_out: the step that found it. */
static char *search_find(const struct search *s, const char *name, const struct bin_imports *im,
                         size_t start, size_t *step_out)
{
    for (size_t i = start; i < s->count; i++) {
        const struct search_step *st = &s->steps[i];
        if (st->dir) {
            char *path = path_join(st->dir, name);
            if (fs_kind(path) != FS_NONE && same_machine(path, im)) {
                if (step_out)
                    *step_out = i;
                return path;
            }
            free(path);
            continue;
        }
        for (size_t e = 0; e < s->cache.count; e++) {
            const struct ldcache_entry *c = &s->cache.entries[e];
            if (!strcmp(c->name, name) && fs_kind(c->path) != FS_NONE &&
                same_machine(c->path, im)) {
                if (step_out)
                    *step_out = i;
                return xstrdup(c->path);
            }
        }
    }
    return NULL;
}

static void describe_search(const struct search *s, struct strbuf *sb)
{
    const char *last = NULL;
    for (size_t i = 0; i < s->count; i++) {
        if (last && !strcmp(last, s->steps[i].origin))
            continue;
        last = s->steps[i].origin;
        sb_addf(sb, "%s%s", i ? ", " : "", last);
    }
}

/* The install's cuDNN libraries by the names programs load them by. */
static void find_libs(struct doctor *d)
{
    char **names = NULL;
    size_t n = 0;
    d->libs = xcalloc(1, sizeof(char *));
    if (fs_list_dir(d->ctx, d->lib_dir, &names) != CDM_OK)
        return;
    bool win = is_windows(d->install.platform);
    for (char **p = names; *p; p++) {
        bool take;
        if (win) {
            take = prefix_icase(*p, "cudnn") && str_ends_with_icase(*p, ".dll");
        } else {
            /* libcudnn*.so.<major>: the soname, not the .so link or the full version */
            char *suffix = xasprintf(".so.%d", d->major);
            take = str_starts_with(*p, "libcudnn") && str_ends_with(*p, suffix);
            free(suffix);
        }
        if (take) {
            d->libs = xrealloc(d->libs, (n + 2) * sizeof(char *));
            d->libs[n++] = xstrdup(*p);
            d->libs[n] = NULL;
        }
    }
    cdm_strv_free(names);
}

static void check_one_library(struct doctor *d, const char *file)
{
    char *name = xasprintf("deps.%s", file);
    char *path = path_join(d->lib_dir, file);
    FILE *f = loader_fopen(path);
    struct bin_imports im;
    const char *why = f ? bin_read_imports(f, &im) : "cannot open it";
    if (f)
        fclose(f);
    if (why) {
        doctor_add(d, name, CDM_CHECK_FAIL, "run 'cdm verify' on this install",
                   "cannot read the imports of '%s': %s", path, why);
        free(name);
        free(path);
        return;
    }
    struct search s;
    loader_search_order(path, &im, &s);
    struct strbuf found = STRBUF_INIT, missing = STRBUF_INIT, fix = STRBUF_INIT;
    size_t nfound = 0, nmissing = 0;
    bool win = is_windows(d->install.platform);
    for (size_t i = 0; i < im.count; i++) {
        const char *dep = im.needed[i];
        if (loader_is_builtin(dep))
            continue;
        size_t step = 0;
        char *where = search_find(&s, dep, &im, 0, &step);
        if (where) {
            sb_addf(&found, "%s%s (%s)", nfound++ ? ", " : "", dep, s.steps[step].origin);
            free(where);
            continue;
        }
        const struct origin_row *o = origin_of(dep);
        sb_addf(&missing, "%s%s (%s)", nmissing ? "; " : "", dep, o ? o->what : "a system library");
        if (o && o->toolkit)
            sb_addf(&fix, "%sinstall the CUDA %d toolkit and add its %s folder to %s",
                    nmissing ? "; " : "", d->install.cuda, win ? "bin" : "lib",
                    win ? "PATH" : "LD_LIBRARY_PATH");
        else
            sb_addf(&fix, "%sinstall %s where the loader finds it", nmissing ? "; " : "",
                    o ? o->what : dep);
        nmissing++;
    }
    if (nmissing) {
        struct strbuf where = STRBUF_INIT;
        describe_search(&s, &where);
        doctor_add(d, name, CDM_CHECK_FAIL, sb_str(&fix), "missing %s; looked in %s",
                   sb_str(&missing), sb_str(&where));
        sb_free(&where);
    } else {
        doctor_add(d, name, CDM_CHECK_OK, NULL, "%u import(s), all found: %s", (unsigned)nfound,
                   nfound ? sb_str(&found) : "none");
    }
    sb_free(&found);
    sb_free(&missing);
    sb_free(&fix);
    search_free(&s);
    bin_imports_free(&im);
    free(name);
    free(path);
}

static void check_deps(struct doctor *d)
{
    if (!need_install(d, "deps"))
        return;
    if (!d->libs[0]) {
        doctor_add(d, "deps", CDM_CHECK_FAIL, "install the archive again with --force",
                   "no cuDNN libraries in '%s'", d->lib_dir);
        return;
    }
    for (char **p = d->libs; *p; p++)
        check_one_library(d, *p);
}

/* cuDNN 9 loads cuBLASLt and NVRTC itself when it needs them, so no import names them. */
static void check_runtime_deps(struct doctor *d)
{
    if (!d->have_install || !d->native || d->major < 9)
        return;
    bool win = is_windows(d->install.platform);
    char *names[2];
    if (win) {
        names[0] = xasprintf("cublasLt64_%d.dll", d->install.cuda);
        names[1] = xasprintf("nvrtc64_%d0_0.dll", d->install.cuda);
    } else {
        names[0] = xasprintf("libcublasLt.so.%d", d->install.cuda);
        names[1] = xasprintf("libnvrtc.so.%d", d->install.cuda);
    }
    FILE *f = loader_fopen(d->main_lib);
    struct bin_imports im;
    bool have_im = f && !bin_read_imports(f, &im);
    if (f)
        fclose(f);
    struct search s;
    loader_search_order(d->main_lib, have_im ? &im : NULL, &s);
    struct strbuf found = STRBUF_INIT, missing = STRBUF_INIT;
    for (size_t i = 0; i < 2; i++) {
        size_t step = 0;
        char *where = search_find(&s, names[i], have_im ? &im : NULL, 0, &step);
        if (where)
            sb_addf(&found, "%s%s in '%s' (%s)", found.len ? ", " : "", names[i], where,
                    s.steps[step].origin);
        else
            sb_addf(&missing, "%s%s", missing.len ? ", " : "", names[i]);
        free(where);
    }
    if (missing.len) {
        char *fix = xasprintf("install the CUDA %d toolkit's cuBLAS and NVRTC and add their folder "
                              "to %s",
                              d->install.cuda, win ? "PATH" : "LD_LIBRARY_PATH");
        doctor_add(
            d, "deps.runtime", CDM_CHECK_WARN, fix,
            "cuDNN %d loads cuBLASLt and NVRTC at run time; the loader would not find %s%s%s",
            d->major, sb_str(&missing), found.len ? "; found " : "", sb_str(&found));
        free(fix);
    } else {
        doctor_add(d, "deps.runtime", CDM_CHECK_OK, NULL,
                   "found what cuDNN %d loads at run time: %s", d->major, sb_str(&found));
    }
    sb_free(&found);
    sb_free(&missing);
    search_free(&s);
    if (have_im)
        bin_imports_free(&im);
    free(names[0]);
    free(names[1]);
}

/* ---- layer 4: shadowing -------------------------------------------------------------- */

/* A cuDNN library's version without loading it: from a versioned file name
 * (libcudnn.so.9.1.0), else from a cudnn_version.h beside its folder. "" when unreadable. */
static void version_of_file(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    char *real = fs_realpath(path);
    const char *base = real ? path_basename(real) : "";
    const char *so = strstr(base, ".so.");
    if (so && strchr(so + 4, '.')) {
        copy_str(out, size, so + 4);
        free(real);
        return;
    }
    char *dir = path_dirname(real ? real : path);
    static const char *const headers[] = {"../include/cudnn_version.h",
                                          "../../include/cudnn_version.h", "../include/cudnn.h"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(headers) && !out[0]; i++) {
        char *h = path_join(dir, headers[i]);
        FILE *f = loader_fopen(h);
        if (f) {
            char text[16384];
            size_t n = fread(text, 1, sizeof(text) - 1, f);
            fclose(f);
            int ma, mi, pa;
            if (cudnn_header_version(text, n, &ma, &mi, &pa))
                snprintf(out, size, "%d.%d.%d", ma, mi, pa);
        }
        free(h);
    }
    free(dir);
    free(real);
}

static bool same_dir(const char *a, const char *b)
{
    char *ra = fs_realpath(a), *rb = fs_realpath(b);
    bool same = ra && rb && !strcmp(ra, rb);
    free(ra);
    free(rb);
    return same;
}

static void check_shadowing(struct doctor *d)
{
    if (!need_install(d, "shadowing"))
        return;
    bool win = is_windows(d->install.platform);
    struct search s;
    loader_search_order(NULL, NULL, &s);
    /* Is the project's folder on the search path at all, and at which step? */
    size_t own = s.count;
    for (size_t i = 0; i < s.count && own == s.count; i++)
        if (s.steps[i].dir && same_dir(s.steps[i].dir, d->lib_dir))
            own = i;
    struct strbuf before = STRBUF_INIT, other = STRBUF_INIT;
    size_t nbefore = 0;
    for (char **p = d->libs; p && *p; p++) {
        char *own_path = path_join(d->lib_dir, *p);
        size_t step = 0;
        char *hit = search_find(&s, *p, NULL, 0, &step);
        /* every copy found ahead of the project's own folder */
        while (hit && step < own) {
            if (!same_dir(hit, own_path)) {
                char ver[64];
                version_of_file(hit, ver, sizeof(ver));
                sb_addf(&before, "%s'%s'%s%s%s via %s", nbefore++ ? ", " : "", hit,
                        *ver ? " (cuDNN " : "", ver, *ver ? ")" : "", s.steps[step].origin);
            }
            free(hit);
            hit = step + 1 < s.count ? search_find(&s, *p, NULL, step + 1, &step) : NULL;
        }
        free(hit);
        free(own_path);
    }
    /* cuDNN of another major ahead of the project: what a program built for it loads. */
    for (size_t i = 0; i < own && i < s.count; i++) {
        if (!s.steps[i].dir)
            continue;
        for (int m = 7; m <= 10; m++) {
            if (m == d->major)
                continue;
            char *file = win ? xasprintf("cudnn64_%d.dll", m) : xasprintf("libcudnn.so.%d", m);
            char *path = path_join(s.steps[i].dir, file);
            if (fs_kind(path) != FS_NONE) {
                char ver[64];
                version_of_file(path, ver, sizeof(ver));
                sb_addf(&other, "%s'%s'%s%s%s via %s", other.len ? ", " : "", path,
                        *ver ? " (cuDNN " : "", ver, *ver ? ")" : "", s.steps[i].origin);
            }
            free(path);
            free(file);
        }
    }
    const char *var = win ? "PATH" : "LD_LIBRARY_PATH";
    char *activate = xasprintf("activate the project (%s) so that '%s' comes first on %s",
                               win ? "cdm activate --shell pwsh | Out-String | Invoke-Expression"
                                   : "eval \"$(cdm activate)\"",
                               d->lib_dir, var);
    if (nbefore && own < s.count) {
        char *fix =
            xasprintf("remove those folders from %s, or put '%s' before them", var, d->lib_dir);
        doctor_add(d, "shadowing", CDM_CHECK_FAIL, fix,
                   "found before the project's own library: %s", sb_str(&before));
        free(fix);
    } else if (nbefore) {
        doctor_add(d, "shadowing", CDM_CHECK_WARN, activate,
                   "'%s' is not on %s, so programs load another cuDNN: %s", d->lib_dir, var,
                   sb_str(&before));
    } else if (other.len) {
        doctor_add(d, "shadowing", CDM_CHECK_WARN, "remove stale cuDNN copies from those folders",
                   "other cuDNN versions come first for programs built against them: %s",
                   sb_str(&other));
    } else if (own == s.count) {
        doctor_add(d, "shadowing", CDM_CHECK_OK, NULL,
                   "no other cuDNN on the search path; '%s' is not on %s (activate the project "
                   "to use it)",
                   d->lib_dir, var);
    } else {
        doctor_add(d, "shadowing", CDM_CHECK_OK, NULL, "no other cuDNN comes before '%s' (%s)",
                   d->lib_dir, s.steps[own].origin);
    }
    free(activate);
    sb_free(&before);
    sb_free(&other);
    search_free(&s);
}

/* ---- layer 5: driver and toolkit ----------------------------------------------------- */

static void check_driver(struct doctor *d)
{
    driver_probe(d);
    const struct driver_info *dr = &d->driver;
    char cuda[32] = "";
    if (dr->cuda_version)
        snprintf(cuda, sizeof(cuda), "; supports CUDA %d.%d", dr->cuda_version / 1000,
                 dr->cuda_version % 1000 / 10);
    if (!dr->found)
        doctor_add(d, "driver", CDM_CHECK_WARN,
                   "install the NVIDIA driver; cuDNN needs it and a GPU to run",
                   "no NVIDIA driver found (neither NVML nor libcuda/nvcuda could be loaded)");
    else if (!*dr->version && !dr->cuda_version)
        doctor_add(d, "driver", CDM_CHECK_WARN, "check the driver with 'nvidia-smi'",
                   "the driver's libraries (%s) did not answer: %s", dr->source, dr->error);
    else
        doctor_add(d, "driver", CDM_CHECK_OK, NULL, "driver %s%s (from %s)",
                   *dr->version ? dr->version : "version unknown", cuda, dr->source);
}

/* The first "X.Y" or "X.Y.Z" after key in text. */
static bool version_after(const char *text, const char *key, char *out, size_t size)
{
    const char *p = strstr(text, key);
    if (!p)
        return false;
    p += strlen(key);
    while (*p && !isdigit((unsigned char)*p) && *p != '\n')
        p++;
    size_t n = 0;
    while (n + 1 < size && (isdigit((unsigned char)p[n]) || p[n] == '.'))
        n++;
    if (n == 0)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    while (n && out[n - 1] == '.')
        out[--n] = '\0';
    return strchr(out, '.') != NULL;
}

static char *slurp(const char *path)
{
    FILE *f = loader_fopen(path);
    if (!f)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb.len < (1u << 20))
        sb_addn(&sb, buf, n);
    fclose(f);
    sb_addn(&sb, "", 0);
    return sb_detach(&sb);
}

/* A toolkit folder: version.json ("cuda": {"version": ...}), version.txt, or its nvcc. */
static bool toolkit_in(struct doctor *d, const char *dir, const char *why)
{
    char *json = path_join(dir, "version.json");
    char *txt = path_join(dir, "version.txt");
    char *text;
    bool ok = false;
    if ((text = slurp(json))) {
        const char *cuda = strstr(text, "\"cuda\"");
        ok = cuda && version_after(cuda, "\"version\"", d->tk_version, sizeof(d->tk_version));
        snprintf(d->tk_source, sizeof(d->tk_source), "'%s' (%s)", json, why);
    } else if ((text = slurp(txt))) {
        ok = version_after(text, "CUDA Version", d->tk_version, sizeof(d->tk_version));
        snprintf(d->tk_source, sizeof(d->tk_source), "'%s' (%s)", txt, why);
    } else {
        char *bin = path_join(dir, "bin");
        char *nvcc = path_join(bin, "nvcc");
        if (fs_kind(nvcc) != FS_NONE && (text = loader_run_capture(nvcc, "--version"))) {
            ok = version_after(text, "release", d->tk_version, sizeof(d->tk_version));
            snprintf(d->tk_source, sizeof(d->tk_source), "'%s --version' (%s)", nvcc, why);
        }
        free(nvcc);
        free(bin);
    }
    free(text);
    free(json);
    free(txt);
    return ok;
}

/* True when path is the store or inside it: activation points CUDA_PATH at the project's
 * link, which holds cuDNN, not a toolkit. */
static bool in_store(struct doctor *d, const char *path)
{
    char *real = fs_realpath(path), *root = fs_realpath(cdm_root(d->ctx));
    bool inside = real && root && str_starts_with(real, root) &&
                  (real[strlen(root)] == '/' || real[strlen(root)] == '\\' || !real[strlen(root)]);
    free(real);
    free(root);
    return inside;
}

static void find_toolkit(struct doctor *d)
{
    static const char *const vars[] = {"CUDA_PATH", "CUDA_HOME"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(vars) && !d->have_toolkit; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v && !in_store(d, v))
            d->have_toolkit = toolkit_in(d, v, vars[i]);
    }
    if (!d->have_toolkit) {
        char *text = loader_run_capture("nvcc", "--version");
        if (text && version_after(text, "release", d->tk_version, sizeof(d->tk_version))) {
            d->have_toolkit = true;
            copy_str(d->tk_source, sizeof(d->tk_source), "'nvcc --version' (PATH)");
        }
        free(text);
    }
    if (d->have_toolkit) {
        struct version v;
        d->have_toolkit = version_parse(d->tk_version, &v) && v.count >= 2;
        d->tk_major = v.part[0];
        d->tk_minor = v.part[1];
    }
}

static void check_toolkit(struct doctor *d)
{
    find_toolkit(d);
    if (d->have_toolkit)
        doctor_add(d, "toolkit", CDM_CHECK_OK, NULL, "CUDA toolkit %s, from %s", d->tk_version,
                   d->tk_source);
    else
        doctor_add(d, "toolkit", CDM_CHECK_SKIP, NULL,
                   "no CUDA toolkit found (CUDA_PATH and CUDA_HOME unset or without a version "
                   "file, no nvcc on PATH)");
}

static void check_compat_toolkit(struct doctor *d)
{
    if (!d->have_install || !d->have_toolkit) {
        doctor_add(d, "compat.toolkit", CDM_CHECK_SKIP, NULL, "%s",
                   d->have_install ? "no toolkit to compare with" : "no cuDNN install to examine");
        return;
    }
    char why[512];
    enum compat_verdict v = compat_toolkit(d->major, d->minor, d->patch, d->install.cuda,
                                           d->tk_major, d->tk_minor, why, sizeof(why));
    char *fix = xasprintf("use cuDNN's cuda%d variant ('cdm install %d.%d --cuda %d') or a CUDA "
                          "%d toolkit for this one",
                          d->tk_major, d->major, d->minor, d->tk_major, d->install.cuda);
    static const enum cdm_check_status map[] = {CDM_CHECK_OK, CDM_CHECK_WARN, CDM_CHECK_FAIL,
                                                CDM_CHECK_OK};
    doctor_add(d, "compat.toolkit", map[v], fix, "%s", why);
    free(fix);
}

static void check_compat_driver(struct doctor *d)
{
    driver_probe(d);
    /* Without a toolkit, the CUDA runtime cuDNN was built with is what needs the driver. */
    int ma = d->tk_major, mi = d->tk_minor;
    const char *what = "toolkit";
    if (!d->have_toolkit && d->cudart) {
        ma = (int)(d->cudart / 1000);
        mi = (int)(d->cudart % 1000 / 10);
        what = "cuDNN's CUDA runtime";
    } else if (!d->have_toolkit) {
        doctor_add(d, "compat.driver", CDM_CHECK_SKIP, NULL, "no CUDA version to compare with");
        return;
    }
    if (!d->driver.found || (!*d->driver.version && !d->driver.cuda_version)) {
        doctor_add(d, "compat.driver", CDM_CHECK_SKIP, NULL, "no driver version");
        return;
    }
    char *fix = xasprintf("update the NVIDIA driver for CUDA %d.%d", ma, mi);
    if (*d->driver.version) {
        char why[512];
        enum compat_verdict v =
            compat_driver(d->driver.version, ma, mi,
                          str_starts_with(cdm_host_platform(), "windows"), why, sizeof(why));
        static const enum cdm_check_status map[] = {CDM_CHECK_OK, CDM_CHECK_WARN, CDM_CHECK_FAIL,
                                                    CDM_CHECK_SKIP};
        doctor_add(d, "compat.driver", map[v], fix, "%s (%s %d.%d)", why, what, ma, mi);
    } else {
        int dma = d->driver.cuda_version / 1000, dmi = d->driver.cuda_version % 1000 / 10;
        if (dma > ma || (dma == ma && dmi >= mi))
            doctor_add(d, "compat.driver", CDM_CHECK_OK, NULL,
                       "the driver supports CUDA %d.%d, the %s is %d.%d", dma, dmi, what, ma, mi);
        else if (dma == ma)
            doctor_add(d, "compat.driver", CDM_CHECK_WARN, fix,
                       "the driver supports CUDA %d.%d, older than the %s's %d.%d (minor-version "
                       "compatibility applies)",
                       dma, dmi, what, ma, mi);
        else
            doctor_add(d, "compat.driver", CDM_CHECK_FAIL, fix,
                       "the driver supports CUDA %d.%d, too old for the %s's %d.%d", dma, dmi, what,
                       ma, mi);
    }
    free(fix);
}

/* ---- the table ----------------------------------------------------------------------- */

static void check_platform(struct doctor *d)
{
    loader_platform_checks(d);
}

static void (*const checks[])(struct doctor *) = {
    check_index,   check_leftovers,      check_installs,      check_project,
    check_load,    check_version,        check_cudart,        check_handle,
    check_deps,    check_runtime_deps,   check_shadowing,     check_driver,
    check_toolkit, check_compat_toolkit, check_compat_driver, check_platform,
};

static int choose_install(struct doctor *d, const struct cdm_doctor_request *req)
{
    if (req->spec) {
        int rc = cdm_resolve(d->ctx, req->spec, req->cuda, &d->install);
        if (rc)
            return rc;
        d->have_install = true;
    } else if (d->have_project) {
        d->have_install = installed(d, d->project.linked_id, &d->install) ||
                          installed(d, d->project.pinned_id, &d->install);
    }
    if (!d->have_install)
        return CDM_OK;
    struct version v;
    version_parse(d->install.version, &v);
    d->major = v.part[0];
    d->minor = v.part[1];
    d->patch = v.part[2];
    d->native = !strcmp(d->install.platform, cdm_host_platform());
    bool win = is_windows(d->install.platform);
    char *dir = path_join(d->install.path, win ? d->install.bin_dir : d->install.lib_dir);
    copy_str(d->lib_dir, sizeof(d->lib_dir), dir);
    char *file =
        win ? xasprintf("cudnn64_%d.dll", d->major) : xasprintf("libcudnn.so.%d", d->major);
    char *main = path_join(dir, file);
    copy_str(d->main_lib, sizeof(d->main_lib), main);
    free(main);
    free(file);
    free(dir);
    return CDM_OK;
}

int cdm_doctor(cdm_ctx *ctx, const struct cdm_doctor_request *req, struct cdm_doctor_report *report)
{
    memset(report, 0, sizeof(*report));
    struct doctor *d = xcalloc(1, sizeof(*d));
    d->ctx = ctx;
    d->report = report;
    char *db = path_join(cdm_root(ctx), "cdm.db");
    d->store_exists = fs_kind(db) == FS_FILE;
    free(db);
    int rc = store_open(ctx, false);
    if (!rc && req->project)
        rc = cdm_project_open(ctx, req->project, &d->project);
    if (!rc && req->project)
        d->have_project = true;
    else if (!rc)
        d->have_project = cdm_project_find(ctx, NULL, &d->project) == CDM_OK;
    if (!rc)
        rc = choose_install(d, req);
    if (!rc) {
        if (d->have_project)
            copy_str(report->project, sizeof(report->project), d->project.path);
        if (d->have_install) {
            copy_str(report->install_id, sizeof(report->install_id), d->install.id);
            find_libs(d);
        }
        for (size_t i = 0; i < CDM_ARRAY_LEN(checks); i++)
            checks[i](d);
    }
    if (d->lib)
        loader_keep(d->lib);
    cdm_strv_free(d->libs);
    free(d);
    if (rc)
        cdm_doctor_report_free(report);
    return rc;
}
