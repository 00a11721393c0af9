/* The dynamic loader on POSIX (glibc's ld.so): dlopen and its search order. */
#define _GNU_SOURCE /* dladdr: which file a library came from */
#include "fs.h"
#include "loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* struct loader_lib is never defined: a pointer to one is dlopen's handle. */

struct loader_lib *loader_open(const char *path, char **why)
{
    /* RTLD_LOCAL: the library's symbols must not satisfy later loads (a shadowing copy). */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        *why = xstrdup(e ? e : "unknown loader error");
        return NULL;
    }
    return (struct loader_lib *)h;
}

loader_fn loader_sym(struct loader_lib *lib, const char *name)
{
    void *p = dlsym(lib, name);
    loader_fn fn;
    /* POSIX guarantees data and function pointers convert; ISO C does not, hence memcpy. */
    memcpy(&fn, &p, sizeof(fn));
    return fn;
}

void loader_close(struct loader_lib *lib)
{
    if (lib)
        dlclose(lib);
}

struct loader_lib *loader_open_system(const char *name, char **why)
{
    return loader_open(name, why); /* a name without a slash: ld.so searches for it */
}

char *loader_lib_file(struct loader_lib *lib, loader_fn sym)
{
    (void)lib;
    void *p;
    Dl_info info;
    memcpy(&p, &sym, sizeof(p));
    return p && dladdr(p, &info) && info.dli_fname ? xstrdup(info.dli_fname) : NULL;
}

const struct loader_names loader_names = {':', "libnvidia-ml.so.1", "libcuda.so.1"};

static void read_cache(struct ldcache *cache)
{
    struct strbuf sb = STRBUF_INIT;
    if (fs_read_file("/etc/ld.so.cache", (size_t)64 << 20, &sb) && sb.len)
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
    loader_search_order_with(lib_path, im, getenv("LD_LIBRARY_PATH"), out);
}

void loader_search_order_with(const char *lib_path, const struct bin_imports *im,
                              const char *path_list, struct search *out)
{
    memset(out, 0, sizeof(*out));
    char *origin_dir = lib_path ? path_dirname(lib_path) : NULL;
    /* ld.so: DT_RPATH (only without DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the cache,
     * then the built-in folders. */
    if (im && im->rpath && !im->runpath)
        search_add_list(out, im->rpath, ':', origin_dir, "RPATH");
    search_add_list(out, path_list, ':', NULL, "LD_LIBRARY_PATH");
    if (im && im->runpath)
        search_add_list(out, im->runpath, ':', origin_dir, "RUNPATH");
    search_add(out, NULL, "the loader cache");
    read_cache(&out->cache);
    static const char *const defaults[] = {
        "/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64", "/usr/lib64", "/lib", "/usr/lib",
    };
    for (size_t i = *MULTIARCH ? 0 : 2; i < CDM_ARRAY_LEN(defaults); i++)
        search_add(out, defaults[i], "a default folder");
    free(origin_dir);
}

bool loader_is_builtin(const char *name)
{
    (void)name;
    return false;
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
    bool read = sb_read_command_output(&out, p, 1u << 20);
    int status = pclose(p);
    if (!read || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
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

bool loader_boot_id(char *out, size_t size)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)size, f) != NULL;
    fclose(f);
    out[strcspn(out, "\r\n")] = '\0';
    return ok && *out;
}
