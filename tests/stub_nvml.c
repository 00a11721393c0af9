/* A stand-in NVML (libnvidia-ml.so.1) for the doctor tests: the driver version comes from
 * -DSTUB_DRIVER="\"550.54.15\"". */
#include <string.h>

#ifndef STUB_DRIVER
#define STUB_DRIVER "550.54.15"
#endif

int nvmlInit_v2(void)
{
    return 0;
}

int nvmlSystemGetDriverVersion(char *version, unsigned length)
{
    if (length < sizeof(STUB_DRIVER))
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    memcpy(version, STUB_DRIVER, sizeof(STUB_DRIVER));
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}
