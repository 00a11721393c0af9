/* The dynamic loader on Windows: LoadLibraryExW, its search order, the driver, and the
 * host's facts only Windows has (the store's file system, long paths, PowerShell's
 * execution policy). */
#include "fs.h"
#include "loader.h"
#include "win32_util.h"

#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

struct loader_lib {
    HMODULE module;
};

struct loader_lib *loader_open(const char *path, char **why)
{
    wchar_t *w = win_wide(path);
    /* The DLL's own folder first, then the default safe folders: what a cuDNN user wants,
     * and never the current folder. */
    HMODULE m =
        w ? LoadLibraryExW(w, NULL,
                           LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS)
          : NULL;
    free(w);
    if (!m) {
        *why = win_error_text(GetLastError());
        return NULL;
    }
    struct loader_lib *lib = xmalloc(sizeof(*lib));
    lib->module = m;
    return lib;
}

loader_fn loader_sym(struct loader_lib *lib, const char *name)
{
    FARPROC p = GetProcAddress(lib->module, name);
    loader_fn fn;
    memcpy(&fn, &p, sizeof(fn));
    return fn;
}

void loader_close(struct loader_lib *lib)
{
    if (!lib)
        return;
    FreeLibrary(lib->module);
    free(lib);
}

void loader_keep(struct loader_lib *lib)
{
    free(lib);
}

FILE *loader_fopen(const char *path)
{
    wchar_t *w = win_wide(path);
    FILE *f = w ? _wfopen(w, L"rb") : NULL;
    free(w);
    return f;
}

static char *env_utf8(const wchar_t *name)
{
    DWORD n = GetEnvironmentVariableW(name, NULL, 0);
    if (!n)
        return NULL;
    wchar_t *w = xmalloc(n * sizeof(wchar_t));
    GetEnvironmentVariableW(name, w, n);
    char *s = win_narrow(w);
    free(w);
    return s;
}

static void add_step(struct search *s, const char *dir, const char *origin)
{
    s->steps = xrealloc(s->steps, (s->count + 1) * sizeof(*s->steps));
    s->steps[s->count].dir = dir ? xstrdup(dir) : NULL;
    s->steps[s->count].origin = origin;
    s->count++;
}

static void add_list(struct search *s, const char *list, const char *origin)
{
    if (!list)
        return;
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n) {
            char *part = xstrndup(p, n);
            add_step(s, part, origin);
            free(part);
        }
        if (!end)
            break;
        p = end + 1;
    }
}

static char *system_dir(void)
{
    wchar_t w[MAX_PATH + 1];
    UINT n = GetSystemDirectoryW(w, MAX_PATH);
    return n && n < MAX_PATH ? win_narrow(w) : NULL;
}

void loader_search_order(const char *lib_path, const struct bin_imports *im, struct search *out)
{
    (void)im; /* PE files carry no search path of their own */
    memset(out, 0, sizeof(*out));
    out->case_insensitive = true;
    /* The standard search order for a DLL's imports: its folder (as LoadLibraryEx with
     * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, and the application's folder for the usual
     * python.exe beside its DLLs), System32, then PATH. */
    if (lib_path) {
        char *dir = path_dirname(lib_path);
        add_step(out, dir, "the DLL's folder");
        free(dir);
    }
    char *sys = system_dir();
    if (sys)
        add_step(out, sys, "System32");
    free(sys);
    char *path = env_utf8(L"PATH");
    add_list(out, path, "PATH");
    free(path);
}

bool loader_is_builtin(const char *name)
{
    /* API sets are resolved by the loader itself, not from files. */
    return !_strnicmp(name, "api-ms-win-", 11) || !_strnicmp(name, "ext-ms-", 7);
}

/* ---- the driver ------------------------------------------------------------------- */

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_version_fn)(char *, unsigned);
typedef int (*cu_version_fn)(int *);

static HMODULE open_driver_lib(const char *name, const char *dirs)
{
    if (!dirs) {
        wchar_t *w = win_wide(name);
        HMODULE m = LoadLibraryExW(w, NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
        free(w);
        return m;
    }
    struct search s = {0};
    add_list(&s, dirs, "CDM_DRIVER_LIB_PATH");
    HMODULE m = NULL;
    for (size_t i = 0; i < s.count && !m; i++) {
        char *path = path_join(s.steps[i].dir, name);
        wchar_t *w = win_wide(path);
        if (w && GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES)
            m = LoadLibraryExW(w, NULL,
                               LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
        free(w);
        free(path);
    }
    search_free(&s);
    return m;
}

static void note_source(struct driver_info *out, HMODULE m)
{
    wchar_t w[MAX_PATH + 1];
    DWORD n = GetModuleFileNameW(m, w, MAX_PATH);
    if (!n || n >= MAX_PATH)
        return;
    w[n] = 0;
    char *s = win_narrow(w);
    size_t len = strlen(out->source);
    snprintf(out->source + len, sizeof(out->source) - len, "%s%s", len ? ", " : "", s);
    free(s);
}

void loader_driver(struct driver_info *out)
{
    memset(out, 0, sizeof(*out));
    char *dirs = env_utf8(L"CDM_DRIVER_LIB_PATH");
    HMODULE nvml = open_driver_lib("nvml.dll", dirs);
    if (nvml) {
        out->found = true;
        FARPROC init = GetProcAddress(nvml, "nvmlInit_v2"),
                get = GetProcAddress(nvml, "nvmlSystemGetDriverVersion"),
                shut = GetProcAddress(nvml, "nvmlShutdown");
        nvml_init_fn f_init, f_shut;
        nvml_version_fn f_get;
        memcpy(&f_init, &init, sizeof(f_init));
        memcpy(&f_get, &get, sizeof(f_get));
        memcpy(&f_shut, &shut, sizeof(f_shut));
        char version[96] = "";
        int rc;
        if (!f_init || !f_get)
            snprintf(out->error, sizeof(out->error),
                     "NVML lacks nvmlInit_v2 or nvmlSystemGetDriverVersion");
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
        note_source(out, nvml);
        FreeLibrary(nvml);
    }
    HMODULE cuda = open_driver_lib("nvcuda.dll", dirs);
    if (cuda) {
        out->found = true;
        FARPROC get = GetProcAddress(cuda, "cuDriverGetVersion");
        cu_version_fn f_get;
        memcpy(&f_get, &get, sizeof(f_get));
        int v = 0;
        if (f_get && f_get(&v) == 0)
            out->cuda_version = v;
        note_source(out, cuda);
    }
    free(dirs);
}

char *loader_run_capture(const char *program, const char *arg)
{
    /* cmd.exe quoting: the whole line in quotes so that a quoted program path survives */
    char *line = xasprintf("\"\"%s\" \"%s\" 2>NUL\"", program, arg);
    wchar_t *w = win_wide(line);
    free(line);
    if (!w)
        return NULL;
    fflush(NULL);
    FILE *p = _wpopen(w, L"rb");
    free(w);
    if (!p)
        return NULL;
    struct strbuf out = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
        if (out.len < (1u << 20))
            sb_addn(&out, buf, n);
    if (_pclose(p) != 0) {
        sb_free(&out);
        return NULL;
    }
    return sb_detach(&out);
}

/* ---- the host's facts -------------------------------------------------------------- */

static void fact_known(struct host_fact *f, const char *value)
{
    f->state = HOST_FACT_KNOWN;
    copy_str(f->value, sizeof(f->value), value);
}

static void fact_unknown(struct host_fact *f, DWORD error)
{
    char *why = win_error_text(error);
    f->state = HOST_FACT_UNKNOWN;
    copy_str(f->why, sizeof(f->why), why);
    free(why);
}

/* A registry value that is absent is a fact too: the system's default applies. */
static bool not_set(LSTATUS rc)
{
    return rc == ERROR_FILE_NOT_FOUND || rc == ERROR_PATH_NOT_FOUND;
}

static void store_fs(const char *store_root, struct host_fact *out)
{
    wchar_t *root = win_wide(store_root);
    wchar_t volume[MAX_PATH + 1], fs[MAX_PATH + 1];
    BOOL ok = root && GetVolumePathNameW(root, volume, MAX_PATH) &&
              GetVolumeInformationW(volume, NULL, 0, NULL, NULL, NULL, fs, MAX_PATH);
    DWORD error = ok ? 0 : GetLastError();
    free(root);
    if (!ok) {
        fact_unknown(out, error);
        return;
    }
    char *name = win_narrow(fs);
    fact_known(out, name);
    free(name);
}

static void long_paths(struct host_fact *out)
{
    DWORD value = 0, size = sizeof(value);
    LSTATUS rc = RegGetValueW(HKEY_LOCAL_MACHINE, L"SYSTEM\\CurrentControlSet\\Control\\FileSystem",
                              L"LongPathsEnabled", RRF_RT_REG_DWORD, NULL, &value, &size);
    char text[16];
    if (rc == ERROR_SUCCESS) {
        snprintf(text, sizeof(text), "%lu", (unsigned long)value);
        fact_known(out, text);
    } else if (not_set(rc))
        fact_known(out, "");
    else
        fact_unknown(out, (DWORD)rc);
}

static LSTATUS read_policy(HKEY hive, struct host_fact *out)
{
    wchar_t buf[64];
    DWORD n = sizeof(buf);
    LSTATUS rc =
        RegGetValueW(hive, L"SOFTWARE\\Microsoft\\PowerShell\\1\\ShellIds\\Microsoft.PowerShell",
                     L"ExecutionPolicy", RRF_RT_REG_SZ, NULL, buf, &n);
    if (rc == ERROR_SUCCESS) {
        char *s = win_narrow(buf);
        fact_known(out, s);
        free(s);
    }
    return rc;
}

static void exec_policy(struct host_fact *out)
{
    /* The user's scope wins over the machine's. */
    LSTATUS rc = read_policy(HKEY_CURRENT_USER, out);
    if (not_set(rc))
        rc = read_policy(HKEY_LOCAL_MACHINE, out);
    if (not_set(rc))
        fact_known(out, "");
    else if (rc != ERROR_SUCCESS)
        fact_unknown(out, (DWORD)rc);
}

void loader_host_facts(const char *store_root, struct host_facts *out)
{
    memset(out, 0, sizeof(*out));
    store_fs(store_root, &out->store_fs);
    long_paths(&out->long_paths);
    exec_policy(&out->exec_policy);
}
