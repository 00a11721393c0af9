/*
 * A stand-in Python extension module for tests/win/dll_hook.sh: a DLL that imports
 * cudnn64_9.dll by name (linked against its import library, cudnn64_9.def), as
 * CTranslate2's, ONNX Runtime's and PaddlePaddle's modules do. The loader must find
 * cudnn64_9.dll for the module to load at all.
 */
#include <stddef.h>

__declspec(dllimport) size_t cudnnGetVersion(void);

__declspec(dllexport) size_t module_cudnn_version(void)
{
    return cudnnGetVersion();
}
