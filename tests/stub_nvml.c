/* A stand-in NVML (libnvidia-ml.so.1) for the tests: the driver version from
 * $STUB_NVML_DRIVER, else -DSTUB_DRIVER="\"550.54.15\""; the GPUs from $STUB_NVML_GPUS, a
 * ';'-separated list of "CC|NAME" ("6.1|NVIDIA GeForce GTX 1080 Ti"), none when unset. Each
 * GPU's UUID is GPU-57b00000-0000-0000-0000-00000000000N, N its index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STUB_DRIVER
#define STUB_DRIVER "550.54.15"
#endif

struct stub_gpu {
    int major, minor;
    char name[96];
};

/* GPU i of the list, false past its end. */
static int stub_gpu_at(unsigned i, struct stub_gpu *out)
{
    const char *p = getenv("STUB_NVML_GPUS");
    for (unsigned k = 0; p && *p; k++) {
        const char *end = p + strcspn(p, ";");
        if (k == i) {
            const char *bar = memchr(p, '|', (size_t)(end - p));
            size_t n = bar ? (size_t)(end - bar - 1) : 0;
            if (!bar || sscanf(p, "%d.%d", &out->major, &out->minor) != 2 || n >= sizeof(out->name))
                return 0;
            memcpy(out->name, bar + 1, n);
            out->name[n] = '\0';
            return 1;
        }
        p = *end ? end + 1 : end;
    }
    return 0;
}

int nvmlInit_v2(void)
{
    return 0;
}

int nvmlSystemGetDriverVersion(char *version, unsigned length)
{
    const char *v = getenv("STUB_NVML_DRIVER") ? getenv("STUB_NVML_DRIVER") : STUB_DRIVER;
    if (length < strlen(v) + 1)
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    memcpy(version, v, strlen(v) + 1);
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
    struct stub_gpu g;
    *count = 0;
    while (stub_gpu_at(*count, &g))
        ++*count;
    return 0;
}

/* A device handle is its index plus one (NULL is never a handle). */
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev)
{
    struct stub_gpu g;
    if (!stub_gpu_at(i, &g))
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *dev = (void *)(size_t)(i + 1);
    return 0;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned length)
{
    struct stub_gpu g;
    if (!stub_gpu_at((unsigned)(size_t)dev - 1, &g) || length < strlen(g.name) + 1)
        return 2;
    memcpy(name, g.name, strlen(g.name) + 1);
    return 0;
}

int nvmlDeviceGetUUID(void *dev, char *uuid, unsigned length)
{
    snprintf(uuid, length, "GPU-57b00000-0000-0000-0000-%012u", (unsigned)(size_t)dev - 1);
    return 0;
}

int nvmlDeviceGetCudaComputeCapability(void *dev, int *major, int *minor)
{
    struct stub_gpu g;
    if (!stub_gpu_at((unsigned)(size_t)dev - 1, &g))
        return 2;
    *major = g.major;
    *minor = g.minor;
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}
