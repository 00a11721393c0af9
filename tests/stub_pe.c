/* A tiny DLL for the PE import-table unit test, built with mingw-w64 when it is there. */
#include <windows.h>

__declspec(dllexport) DWORD stub_ticks(void)
{
    return GetTickCount();
}
