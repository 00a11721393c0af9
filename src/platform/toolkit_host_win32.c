/* Where CUDA toolkits are installed on Windows (toolkit_host.h): NVIDIA's installer sets
 * CUDA_PATH (the newest) and CUDA_PATH_V12_4 (each version) system-wide, and records each
 * version's folder under HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA. */
#include "toolkit_host.h"
#include "base/util.h"
#include "win32_util.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

#define CUDA_KEY L"SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA"

/* CUDA_PATH first, then every CUDA_PATH_V* variable in the environment block's order. */
static void from_environment(struct toolkit_place **v, size_t *n)
{
    wchar_t *block = GetEnvironmentStringsW();
    if (!block)
        return;
    const wchar_t *main_value = NULL;
    for (const wchar_t *p = block; *p; p += wcslen(p) + 1)
        if (!_wcsnicmp(p, L"CUDA_PATH=", 10))
            main_value = p + 10;
    if (main_value && *main_value)
        toolkit_place_add(v, n, win_narrow(main_value), xstrdup("CUDA_PATH"));
    for (const wchar_t *p = block; *p; p += wcslen(p) + 1) {
        const wchar_t *eq = wcschr(p, L'=');
        if (!eq || eq == p || _wcsnicmp(p, L"CUDA_PATH_V", 11) || !eq[1])
            continue;
        char *name = win_narrow(p);
        name[eq - p] = '\0';
        toolkit_place_add(v, n, win_narrow(eq + 1), name);
    }
    FreeEnvironmentStringsW(block);
}

static void from_registry(struct toolkit_place **v, size_t *n)
{
    HKEY key;
    if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, CUDA_KEY, 0, KEY_READ, &key) != ERROR_SUCCESS)
        return;
    wchar_t sub[256];
    for (DWORD i = 0;; i++) {
        DWORD len = CDM_ARRAY_LEN(sub);
        if (RegEnumKeyExW(key, i, sub, &len, NULL, NULL, NULL, NULL) != ERROR_SUCCESS)
            break;
        wchar_t dir[4096];
        DWORD size = sizeof(dir);
        if (RegGetValueW(key, sub, L"InstallDir", RRF_RT_REG_SZ, NULL, dir, &size) != ERROR_SUCCESS)
            continue;
        char *name = win_narrow(sub);
        toolkit_place_add(v, n, win_narrow(dir), xasprintf("registry %s", name));
        free(name);
    }
    RegCloseKey(key);
}

size_t toolkit_host_places(struct toolkit_place **out)
{
    struct toolkit_place *v = NULL;
    size_t n = 0;
    from_environment(&v, &n);
    from_registry(&v, &n);
    *out = v;
    return n;
}
