/*
 * A stand-in "Python 3.8+" for tests/win/dll_hook.sh: it loads an extension module the way
 * CPython does on Windows, after doing what site.py does with cdm's DLL folders hook.
 *
 *   py_loader SITE_PACKAGES MODULE
 *
 * 1. site: where SITE_PACKAGES holds cdm-dll-dirs.pth (an "import" line naming
 *    cdm-dll-dirs.txt), each line of cdm-dll-dirs.txt that is a folder goes to
 *    AddDllDirectory and first on PATH, as the .pth line does. (That line itself is run by a
 *    real CPython in the same test, on Linux.)
 *    And sitecustomize: where PYTHONPATH's first folder holds cdm's sitecustomize.py (cdm
 *    exec), each folder of CDM_DLL_DIRECTORIES goes the same way, as that file does.
 *    (A real CPython runs that file in the same test, on Linux.)
 * 2. MODULE with a backslash is a module file, loaded as CPython loads extension modules:
 *    LoadLibraryExW(path, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR),
 *    which searches neither PATH nor the current folder; its module_cudnn_version() is called.
 *    Without one it is a DLL name loaded as ctypes.WinDLL does (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS),
 *    and its cudnnGetVersion() is called.
 *
 * Prints "version N" and "from PATH" (the cudnn64_9.dll the process has, in UTF-8); a
 * module that does not load prints "error N" (126: a DLL it imports was not found) and
 * exits with status 3.
 */
#include <windows.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static void print_utf8(const char *label, const wchar_t *text)
{
    char buf[4 * MAX_PATH];
    WideCharToMultiByte(CP_UTF8, 0, text, -1, buf, sizeof(buf), NULL, NULL);
    printf("%s %s\n", label, buf);
}

/* dir first on the process's PATH, as os.environ['PATH'] = dir + ';' + PATH does. */
static void prepend_path(const wchar_t *dir)
{
    static wchar_t path[32768], both[32768];
    DWORD n = GetEnvironmentVariableW(L"PATH", path, 32768);
    swprintf(both, 32768, L"%ls;%ls", dir, n ? path : L"");
    SetEnvironmentVariableW(L"PATH", both);
}

/* site.py with cdm's hook: AddDllDirectory for each folder the list names. */
static void run_hook(const wchar_t *site)
{
    wchar_t pth[MAX_PATH], txt[MAX_PATH];
    swprintf(pth, MAX_PATH, L"%ls\\cdm-dll-dirs.pth", site);
    swprintf(txt, MAX_PATH, L"%ls\\cdm-dll-dirs.txt", site);
    FILE *f = _wfopen(pth, L"rb");
    char line[1024] = "";
    if (!f)
        return;
    fgets(line, sizeof(line), f);
    fclose(f);
    if (strncmp(line, "import ", 7) || !strstr(line, "cdm-dll-dirs.txt") ||
        !(f = _wfopen(txt, L"rb")))
        return;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = '\0';
        wchar_t dir[MAX_PATH];
        if (!MultiByteToWideChar(CP_UTF8, 0, line, -1, dir, MAX_PATH))
            continue;
        DWORD attr = GetFileAttributesW(dir);
        if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY) &&
            AddDllDirectory(dir)) {
            print_utf8("added", dir);
            prepend_path(dir);
        }
    }
    fclose(f);
}

/* Add each existing folder of a ';'-separated list. */
static void add_dirs(wchar_t *list)
{
    for (wchar_t *dir = list, *end; dir; dir = end ? end + 1 : NULL) {
        if ((end = wcschr(dir, L';')))
            *end = L'\0';
        DWORD attr = GetFileAttributesW(dir);
        if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY) &&
            AddDllDirectory(dir)) {
            print_utf8("added", dir);
            prepend_path(dir);
        }
    }
}

/* site's sitecustomize step, with cdm's file first on PYTHONPATH. */
static void run_sitecustomize(void)
{
    static wchar_t path[32768], dirs[32768];
    if (!GetEnvironmentVariableW(L"PYTHONPATH", path, 32768))
        return;
    print_utf8("pythonpath", path);
    path[wcscspn(path, L";")] = L'\0';
    wcscat(path, L"\\sitecustomize.py");
    FILE *f = _wfopen(path, L"rb");
    char text[4096] = "";
    if (!f)
        return;
    text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
    fclose(f);
    if (strstr(text, "CDM_DLL_DIRECTORIES") &&
        GetEnvironmentVariableW(L"CDM_DLL_DIRECTORIES", dirs, 32768))
        add_dirs(dirs);
}

int wmain(int argc, wchar_t **argv)
{
    if (argc != 3) {
        fputs("usage: py_loader SITE_PACKAGES MODULE\n", stderr);
        return 2;
    }
    run_hook(argv[1]);
    run_sitecustomize();
    bool is_file = wcschr(argv[2], L'\\') != NULL;
    DWORD flags =
        LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | (is_file ? LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR : 0);
    HMODULE mod = LoadLibraryExW(argv[2], NULL, flags);
    if (!mod) {
        printf("error %lu\n", GetLastError());
        return 3;
    }
    typedef size_t (*version_fn)(void);
    version_fn fn = (version_fn)(void (*)(void))GetProcAddress(mod, is_file ? "module_cudnn_version"
                                                                            : "cudnnGetVersion");
    if (fn)
        printf("version %zu\n", fn());
    HMODULE cudnn = GetModuleHandleW(L"cudnn64_9.dll");
    wchar_t path[MAX_PATH];
    if (cudnn && GetModuleFileNameW(cudnn, path, MAX_PATH))
        print_utf8("from", path);
    return 0;
}
