/*
 * A stand-in cuDNN library for the doctor tests, compiled at test time. Its answers come
 * from -D macros: STUB_VERSION (cudnnGetVersion), STUB_CUDART (cudnnGetCudartVersion),
 * STUB_CREATE (the status cudnnCreate returns). With STUB_SUB defined it exports nothing:
 * a stand-in for the sub-libraries (libcudnn_graph.so.9 ...). With STUB_ZLIBWAPI defined it
 * calls zlib's zlibVersion, so that it imports zlibwapi.dll as cuDNN 8.3 to 9.1 do on
 * Windows (link it against that DLL's import library). STUB_ABORT_VERSION makes
 * cudnnGetVersion abort the process, as cuDNN does when a sub-library it needs is missing;
 * STUB_HANG_CREATE makes cudnnCreate never return.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef STUB_HANG_CREATE
#include <unistd.h>
#endif

#ifndef STUB_SUB
#ifndef STUB_VERSION
#define STUB_VERSION 90100
#endif
#ifndef STUB_CUDART
#define STUB_CUDART 12040
#endif
#ifndef STUB_CREATE
#define STUB_CREATE 0
#endif

static int stub_handle;

size_t cudnnGetVersion(void)
{
#ifdef STUB_ABORT_VERSION
    fputs("Invalid handle. Cannot load symbol cudnnGetVersion\n", stderr);
    abort();
#endif
    return STUB_VERSION;
}

size_t cudnnGetCudartVersion(void)
{
    return STUB_CUDART;
}

int cudnnCreate(void **handle)
{
#ifdef STUB_HANG_CREATE
    for (;;)
        sleep(1);
#endif
    if (STUB_CREATE == 0)
        *handle = &stub_handle;
    return STUB_CREATE;
}

int cudnnDestroy(void *handle)
{
    return handle == &stub_handle ? 0 : 2000;
}

const char *cudnnGetErrorString(int status)
{
    switch (status) {
    case 0:
        return "CUDNN_STATUS_SUCCESS";
    case 1001:
        return "CUDNN_STATUS_NOT_INITIALIZED";
    case 3007:
        return "CUDNN_STATUS_ARCH_MISMATCH";
    default: {
        /* uses the C library, so the stub imports libc.so.6 like a real library */
        static char buf[48];
        snprintf(buf, sizeof(buf), "CUDNN_STATUS_UNKNOWN_%d", status);
        return buf;
    }
    }
}
#ifdef STUB_ZLIBWAPI
const char *zlibVersion(void);

const char *cudnn_stub_zlib_version(void)
{
    return zlibVersion();
}
#endif
#else
int cudnn_stub_sub_library(void)
{
    return 0;
}
#endif
