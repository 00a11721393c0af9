/* The dynamic loader on Windows: LoadLibraryExW, its search order, and the host's facts
 * only Windows has (the store's file system, long paths, PowerShell's execution policy). */
#include "fs.h"
#include "loader.h"
#include "win32_util.h"

#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <wchar.h>

/* struct loader_lib is never defined: a pointer to one is the HMODULE. */

static struct loader_lib *load(const char *file, DWORD flags, char **why)
{
    wchar_t *w = win_wide(file);
    HMODULE m = w ? LoadLibraryExW(w, NULL, flags) : NULL;
    free(w);
    if (!m) {
        *why = win_error_text(GetLastError());
        return NULL;
    }
    return (struct loader_lib *)m;
}

struct loader_lib *loader_open(const char *path, char **why)
{
    /* The DLL's own folder first, then the default safe folders: what a cuDNN user wants,
     * and never the current folder. */
    return load(path, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, why);
}

loader_fn loader_sym(struct loader_lib *lib, const char *name)
{
    FARPROC p = GetProcAddress((HMODULE)lib, name);
    loader_fn fn;
    memcpy(&fn, &p, sizeof(fn));
    return fn;
}

void loader_close(struct loader_lib *lib)
{
    if (lib)
        FreeLibrary((HMODULE)lib);
}

struct loader_lib *loader_open_system(const char *name, char **why)
{
    return load(name, LOAD_LIBRARY_SEARCH_SYSTEM32, why);
}

char *loader_lib_file(struct loader_lib *lib, loader_fn sym)
{
    (void)sym; /* the module knows its own file */
    wchar_t w[MAX_PATH + 1];
    DWORD n = GetModuleFileNameW((HMODULE)lib, w, MAX_PATH);
    if (!n || n >= MAX_PATH)
        return NULL;
    w[n] = 0;
    return win_narrow(w);
}

const struct loader_names loader_names = {';', "nvml.dll", "nvcuda.dll"};

static char *system_dir(void)
{
    wchar_t w[MAX_PATH + 1];
    UINT n = GetSystemDirectoryW(w, MAX_PATH);
    return n && n < MAX_PATH ? win_narrow(w) : NULL;
}

void loader_search_order(const char *lib_path, const struct bin_imports *im, struct search *out)
{
    char *path = fs_getenv("PATH");
    loader_search_order_with(lib_path, im, path, out);
    free(path);
}

void loader_search_order_with(const char *lib_path, const struct bin_imports *im,
                              const char *path_list, struct search *out)
{
    (void)im; /* PE files carry no search path of their own */
    memset(out, 0, sizeof(*out));
    /* The standard search order for a DLL's imports: its folder (as LoadLibraryEx with
     * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, and the application's folder for the usual
     * python.exe beside its DLLs), System32, then PATH. */
    if (lib_path) {
        char *dir = path_dirname(lib_path);
        search_add(out, dir, "the DLL's folder");
        free(dir);
    }
    char *sys = system_dir();
    if (sys)
        search_add(out, sys, "System32");
    free(sys);
    search_add_list(out, path_list, ';', NULL, "PATH");
}

bool loader_is_builtin(const char *name)
{
    /* API sets are resolved by the loader itself, not from files. */
    return !_strnicmp(name, "api-ms-win-", 11) || !_strnicmp(name, "ext-ms-", 7);
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
    bool read = sb_read_command_output(&out, p, 1u << 20);
    if (_pclose(p) != 0 || !read) {
        sb_free(&out);
        return NULL;
    }
    return sb_detach(&out);
}

/* ---- the host's facts -------------------------------------------------------------- */

static void fact_known(struct host_fact *f, const char *value)
{
    f->state = HOST_FACT_KNOWN;
    if (!copy_str(f->value, sizeof(f->value), value)) {
        f->state = HOST_FACT_UNKNOWN;
        f->value[0] = '\0';
        COPY_STR_ARRAY(f->why, "the value is longer than any cdm knows");
    }
}

static void fact_unknown(struct host_fact *f, DWORD error)
{
    char *why = win_error_text(error);
    f->state = HOST_FACT_UNKNOWN;
    copy_text(f->why, sizeof(f->why), why);
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

/* The boot's time to the minute: the clock's later adjustments move it by seconds, and a
 * rare miss only means the facts are asked again. */
bool loader_boot_id(char *out, size_t size)
{
    long long booted = (long long)time(NULL) - (long long)(GetTickCount64() / 1000);
    snprintf(out, size, "boot-%lld", booted / 60);
    return true;
}
