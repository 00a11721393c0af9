/*
 * A program for the trace tests under Wine (see child_posix.c): it loads DLLs by name
 * and by path and starts a copy of itself, as its arguments say, in order:
 *   name:DLL    LoadLibraryW(DLL) (the loader searches for it)
 *   path:FILE   LoadLibraryW(FILE)
 *   child ...   run this program with the remaining arguments and wait for it
 *   exit:N      exit with status N
 * A DLL that does not load is an exit with status 3.
 */
#include <windows.h>

#include <stdlib.h>
#include <wchar.h>

int wmain(int argc, wchar_t **argv)
{
    for (int i = 1; i < argc; i++) {
        const wchar_t *a = argv[i];
        if (!wcsncmp(a, L"name:", 5) || !wcsncmp(a, L"path:", 5)) {
            if (!LoadLibraryW(a + 5))
                return 3;
        } else if (!wcscmp(a, L"child")) {
            /* the rest of the command line, after the word "child" */
            wchar_t self[MAX_PATH];
            GetModuleFileNameW(NULL, self, MAX_PATH);
            size_t len = wcslen(self) + 3;
            for (int j = i + 1; j < argc; j++)
                len += wcslen(argv[j]) + 1;
            wchar_t *line = calloc(len + 1, sizeof(wchar_t));
            wcscat(line, L"\"");
            wcscat(line, self);
            wcscat(line, L"\"");
            for (int j = i + 1; j < argc; j++) {
                wcscat(line, L" ");
                wcscat(line, argv[j]);
            }
            STARTUPINFOW si = {.cb = sizeof(si)};
            PROCESS_INFORMATION pi;
            if (!CreateProcessW(self, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
                return 127;
            WaitForSingleObject(pi.hProcess, INFINITE);
            DWORD code = 1;
            GetExitCodeProcess(pi.hProcess, &code);
            return (int)code;
        } else if (!wcsncmp(a, L"exit:", 5)) {
            return _wtoi(a + 5);
        }
    }
    return 0;
}
