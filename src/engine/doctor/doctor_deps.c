/* The doctor's dependency layer: what each of the install's cuDNN libraries imports
 * (ELF DT_NEEDED, the PE import table), what cuDNN 9 loads itself at run time, and whether
 * the loader would find them; what is missing is named with where it comes from. */
#include "db.h"
#include "doctor.h"
#include "upstream.h"
#include "store_paths.h"
#include "verify_hash.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

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

static const struct origin_row *origin_of(const char *name)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(origins); i++)
        if (str_starts_with_icase(name, origins[i].prefix))
            return &origins[i];
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

struct recorded_file {
    const char *rel; /* the path asked for, relative to the install */
    char sha256[65]; /* its recorded digest ("" when the index has no such file) */
};

static int find_recorded(void *arg, const struct db_file *f)
{
    struct recorded_file *r = arg;
    if (f->sha256 && !strcmp(f->path, r->rel) && !copy_str(r->sha256, sizeof(r->sha256), f->sha256))
        r->sha256[0] = '\0'; /* not a digest: as if unrecorded */
    return CDM_OK;
}

/* The fix for a file of the install that is no library: as installed, its source held it
 * so (a stand-in, a text file, a download's error page) and verify would find nothing;
 * changed since, verify names it and a forced install mends it. */
static char *not_a_library_fix(struct doctor *d, const char *path)
{
    char *real = fs_realpath(path);
    char *root = xstrdup(d->install.path);
    struct recorded_file r = {.rel = NULL, .sha256 = ""};
    cdm_ctx *owner; /* an upstream's install: its index records the files */
    if (real && (r.rel = path_below(real, root)) && *r.rel &&
        upstream_owner(d->ctx, &d->install, &owner) == CDM_OK) {
        db_files_each(owner, d->install.id, find_recorded, &r);
    }
    struct file_hash h = {.path = real, .expected = 0};
    if (r.sha256[0])
        hash_files(&h, 1, 1);
    char *fix;
    if (r.sha256[0] && h.done && !strcmp(h.hex, r.sha256))
        fix = xasprintf("the file is as installed (its SHA-256 is the one recorded): '%s' held "
                        "it so, and it is not a library; install cuDNN from NVIDIA's archive, "
                        "wheel or package",
                        d->install.archive_name);
    else if (r.sha256[0])
        fix = xasprintf("the file changed since it was installed: 'cdm verify %s' names what "
                        "changed; install it again with --force",
                        d->install.id);
    else
        fix = xasprintf("run 'cdm verify %s'", d->install.id);
    free(real);
    free(root);
    return fix;
}

static void check_one_library(struct doctor *d, const char *file)
{
    char *name = xasprintf("deps.%s", file);
    char *path = path_join(d->lib_dir, file);
    struct bin_imports im;
    const char *why = loader_read_imports(path, &im);
    if (why) {
        char *fix = not_a_library_fix(d, path);
        doctor_add(d, name, CDM_CHECK_FAIL, fix, "cannot read the imports of '%s': %s", path, why);
        free(fix);
        free(name);
        free(path);
        return;
    }
    struct search s;
    loader_search_order(path, &im, &s);
    struct strbuf found = STRBUF_INIT, missing = STRBUF_INIT, fix = STRBUF_INIT;
    size_t nfound = 0, nmissing = 0;
    bool win = d->windows;
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
    if (!doctor_need_install(d, "deps"))
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
    bool win = d->windows;
    char *names[2];
    if (win) {
        names[0] = xasprintf("cublasLt64_%d.dll", d->install.cuda);
        names[1] = xasprintf("nvrtc64_%d0_0.dll", d->install.cuda);
    } else {
        names[0] = xasprintf("libcublasLt.so.%d", d->install.cuda);
        names[1] = xasprintf("libnvrtc.so.%d", d->install.cuda);
    }
    struct bin_imports im;
    bool have_im = !loader_read_imports(d->main_lib, &im);
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

static const doctor_check_fn checks[] = {check_deps, check_runtime_deps};

const struct doctor_layer doctor_deps_layer = {"deps", checks, CDM_ARRAY_LEN(checks)};
