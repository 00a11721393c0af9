/* The dynamic loader on POSIX (glibc's ld.so): dlopen, its search order, the driver. */
#define _GNU_SOURCE /* dladdr: which file answered */
#include "fs.h"
#include "loader.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

struct loader_lib {
    void *handle;
};

struct loader_lib *loader_open(const char *path, char **why)
{
    /* RTLD_LOCAL: the library's symbols must not satisfy later loads (a shadowing copy). */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        *why = xstrdup(e ? e : "unknown loader error");
        return NULL;
    }
    struct loader_lib *lib = xmalloc(sizeof(*lib));
    lib->handle = h;
    return lib;
}

loader_fn loader_sym(struct loader_lib *lib, const char *name)
{
    void *p = dlsym(lib->handle, name);
    loader_fn fn;
    /* POSIX guarantees data and function pointers convert; ISO C does not, hence memcpy. */
    memcpy(&fn, &p, sizeof(fn));
    return fn;
}

void loader_close(struct loader_lib *lib)
{
    if (!lib)
        return;
    dlclose(lib->handle);
    free(lib);
}

void loader_keep(struct loader_lib *lib)
{
    free(lib);
}

FILE *loader_fopen(const char *path)
{
    return fopen(path, "rb");
}

static void add_step(struct search *s, const char *dir, const char *origin)
{
    s->steps = xrealloc(s->steps, (s->count + 1) * sizeof(*s->steps));
    s->steps[s->count].dir = dir ? xstrdup(dir) : NULL;
    s->steps[s->count].origin = origin;
    s->count++;
}

/* A colon-separated list; $ORIGIN expands to the library's folder. Empty parts (the
 * current folder to ld.so) are left out: doctor's answer must not depend on where it ran. */
static void add_list(struct search *s, const char *list, const char *origin_dir, const char *origin)
{
    if (!list)
        return;
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n) {
            char *part = xstrndup(p, n);
            struct strbuf sb = STRBUF_INIT;
            for (const char *q = part; *q;) {
                if (origin_dir && str_starts_with(q, "$ORIGIN")) {
                    sb_add(&sb, origin_dir);
                    q += 7;
                } else if (origin_dir && str_starts_with(q, "${ORIGIN}")) {
                    sb_add(&sb, origin_dir);
                    q += 9;
                } else {
                    sb_addc(&sb, *q++);
                }
            }
            add_step(s, sb_str(&sb), origin);
            sb_free(&sb);
            free(part);
        }
        if (!end)
            break;
        p = end + 1;
    }
}

static void read_cache(struct ldcache *cache)
{
    FILE *f = fopen("/etc/ld.so.cache", "rb");
    if (!f)
        return;
    struct strbuf sb = STRBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        sb_addn(&sb, buf, n);
    fclose(f);
    if (sb.len)
        ldcache_parse((const unsigned char *)sb.buf, sb.len, cache);
    sb_free(&sb);
}

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__)
#define MULTIARCH "powerpc64le-linux-gnu"
#else
#define MULTIARCH ""
#endif

void loader_search_order(const char *lib_path, const struct bin_imports *im, struct search *out)
{
    memset(out, 0, sizeof(*out));
    char *origin_dir = lib_path ? path_dirname(lib_path) : NULL;
    /* ld.so: DT_RPATH (only without DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the cache,
     * then the built-in folders. */
    if (im && im->rpath && !im->runpath)
        add_list(out, im->rpath, origin_dir, "RPATH");
    add_list(out, getenv("LD_LIBRARY_PATH"), NULL, "LD_LIBRARY_PATH");
    if (im && im->runpath)
        add_list(out, im->runpath, origin_dir, "RUNPATH");
    add_step(out, NULL, "the loader cache");
    read_cache(&out->cache);
    if (*MULTIARCH) {
        add_step(out, "/lib/" MULTIARCH, "a default folder");
        add_step(out, "/usr/lib/" MULTIARCH, "a default folder");
    }
    add_step(out, "/lib64", "a default folder");
    add_step(out, "/usr/lib64", "a default folder");
    add_step(out, "/lib", "a default folder");
    add_step(out, "/usr/lib", "a default folder");
    free(origin_dir);
}

bool loader_is_builtin(const char *name)
{
    (void)name;
    return false;
}

/* ---- the driver ------------------------------------------------------------------- */

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_version_fn)(char *, unsigned);
typedef int (*cu_version_fn)(int *);

static void *open_driver_lib(const char *name, const char *dirs)
{
    if (!dirs)
        return dlopen(name, RTLD_NOW | RTLD_LOCAL);
    struct search s = {0};
    add_list(&s, dirs, NULL, "CDM_DRIVER_LIB_PATH");
    void *h = NULL;
    for (size_t i = 0; i < s.count && !h; i++) {
        char *path = path_join(s.steps[i].dir, name);
        if (fs_kind(path) != FS_NONE)
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        free(path);
    }
    search_free(&s);
    return h;
}

static void note_source(struct driver_info *out, void *sym)
{
    Dl_info info;
    if (sym && dladdr(sym, &info) && info.dli_fname) {
        size_t n = strlen(out->source);
        snprintf(out->source + n, sizeof(out->source) - n, "%s%s", n ? ", " : "", info.dli_fname);
    }
}

void loader_driver(struct driver_info *out)
{
    memset(out, 0, sizeof(*out));
    const char *dirs = getenv("CDM_DRIVER_LIB_PATH");
    void *nvml = open_driver_lib("libnvidia-ml.so.1", dirs);
    if (nvml) {
        out->found = true;
        void *init = dlsym(nvml, "nvmlInit_v2"), *get = dlsym(nvml, "nvmlSystemGetDriverVersion"),
             *shut = dlsym(nvml, "nvmlShutdown");
        nvml_init_fn f_init;
        nvml_version_fn f_get;
        nvml_init_fn f_shut;
        memcpy(&f_init, &init, sizeof(f_init));
        memcpy(&f_get, &get, sizeof(f_get));
        memcpy(&f_shut, &shut, sizeof(f_shut));
        int rc;
        char version[96] = "";
        if (!f_init || !f_get)
            snprintf(out->error, sizeof(out->error),
                     "NVML lacks nvmlInit_v2 or "
                     "nvmlSystemGetDriverVersion");
        else if ((rc = f_init()) != 0)
            snprintf(out->error, sizeof(out->error), "nvmlInit_v2 failed with NVML error %d", rc);
        else {
            if ((rc = f_get(version, sizeof(version))) == 0)
                copy_str(out->version, sizeof(out->version), version);
            else
                snprintf(out->error, sizeof(out->error),
                         "nvmlSystemGetDriverVersion failed with NVML error %d", rc);
            if (f_shut)
                f_shut();
        }
        note_source(out, init);
        dlclose(nvml);
    }
    /* Kept loaded: cuDNN's runtime loads libcuda itself, and unloading it is not safe. */
    void *cuda = open_driver_lib("libcuda.so.1", dirs);
    if (cuda) {
        out->found = true;
        void *get = dlsym(cuda, "cuDriverGetVersion");
        cu_version_fn f_get;
        memcpy(&f_get, &get, sizeof(f_get));
        int v = 0;
        if (f_get && f_get(&v) == 0)
            out->cuda_version = v;
        note_source(out, get);
    }
}

char *loader_run_capture(const char *program, const char *arg)
{
    struct strbuf cmd = STRBUF_INIT;
    const char *words[] = {program, arg};
    for (size_t w = 0; w < 2; w++) {
        sb_add(&cmd, w ? " '" : "'");
        for (const char *p = words[w]; *p; p++)
            if (*p == '\'')
                sb_add(&cmd, "'\\''");
            else
                sb_addc(&cmd, *p);
        sb_addc(&cmd, '\'');
    }
    sb_add(&cmd, " 2>/dev/null");
    fflush(NULL);
    FILE *p = popen(sb_str(&cmd), "r");
    sb_free(&cmd);
    if (!p)
        return NULL;
    struct strbuf out = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
        if (out.len < (1u << 20))
            sb_addn(&out, buf, n);
    int status = pclose(p);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        sb_free(&out);
        return NULL;
    }
    return sb_detach(&out);
}

void loader_host_facts(const char *store_root, struct host_facts *out)
{
    /* None of these applies: project links are symbolic links, which every POSIX file
     * system a store sits on holds; paths have no 260-character limit; PowerShell enforces
     * no execution policy off Windows. */
    (void)store_root;
    memset(out, 0, sizeof(*out));
}
