/* Activation facts on Windows: PATH takes the bin folder; the shell is the parent process
 * (pwsh.exe, powershell.exe, cmd.exe), since Windows shells set no $SHELL. */
#include "shell_host.h"
#include "base/util.h"

#include <windows.h>
#include <tlhelp32.h>

const struct shell_platform *shell_host_platform(void)
{
    return &shell_platform_windows;
}

/* The program name of the process with id pid, in UTF-8 (static storage). */
static const char *process_name(HANDLE snapshot, DWORD pid, DWORD *parent)
{
    static char name[MAX_PATH * 3];
    PROCESSENTRY32W pe;
    pe.dwSize = sizeof(pe);
    for (BOOL more = Process32FirstW(snapshot, &pe); more; more = Process32NextW(snapshot, &pe)) {
        if (pe.th32ProcessID != pid)
            continue;
        *parent = pe.th32ParentProcessID;
        if (!WideCharToMultiByte(CP_UTF8, 0, pe.szExeFile, -1, name, (int)sizeof(name), NULL, NULL))
            return NULL;
        return name;
    }
    return NULL;
}

const char *shell_parent_name(void)
{
    HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snapshot == INVALID_HANDLE_VALUE)
        return NULL;
    DWORD parent = 0;
    const char *name = NULL;
    if (process_name(snapshot, GetCurrentProcessId(), &parent) && parent)
        name = process_name(snapshot, parent, &parent);
    CloseHandle(snapshot);
    return name;
}
