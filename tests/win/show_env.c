/*
 * What a Windows program started from an activated cmd sees: CUDA_PATH, CUDNN_PATH and the
 * first PATH entry as UTF-16 code units ("NAME: 005A 003A ..."), and the file a DLL name
 * is found at through PATH (SearchPathW, the loader's own search of PATH), opened. The
 * units are compared with the paths the test made: mojibake of any code page shows.
 */
#include <stdio.h>
#include <wchar.h>
#include <windows.h>

static void print_units(const char *label, const wchar_t *s, size_t n)
{
    printf("%s:", label);
    for (size_t i = 0; i < n; i++)
        printf(" %04X", (unsigned)s[i]);
    printf("\n");
}

static void show_var(const wchar_t *name, const char *label, int first_entry)
{
    static wchar_t buf[32768];
    DWORD n = GetEnvironmentVariableW(name, buf, 32768);
    if (!n || n >= 32768) {
        printf("%s: unset\n", label);
        return;
    }
    size_t len = n;
    if (first_entry) {
        const wchar_t *semi = wcschr(buf, L';');
        if (semi)
            len = (size_t)(semi - buf);
    }
    print_units(label, buf, len);
}

int wmain(int argc, wchar_t **argv)
{
    show_var(L"CUDA_PATH", "CUDA_PATH", 0);
    show_var(L"CUDNN_PATH", "CUDNN_PATH", 0);
    show_var(L"PATH", "PATH[0]", 1);
    const wchar_t *dll = argc > 1 ? argv[1] : L"cudnn64_9.dll";
    wchar_t found[32768];
    DWORD n = SearchPathW(NULL, dll, NULL, 32768, found, NULL);
    if (!n || n >= 32768) {
        printf("found: none (error %lu)\n", GetLastError());
        return 1;
    }
    print_units("found", found, n);
    HANDLE h = CreateFileW(found, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    printf("opened: %s\n", h != INVALID_HANDLE_VALUE ? "yes" : "no");
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    return 0;
}
