/* A stand-in CUDA driver (libcuda.so.1) for the tests: cuDriverGetVersion from
 * $STUB_CUDA_VERSION (default 12020, CUDA 12.2); the GPUs of $STUB_NVML_GPUS (as the stand-in
 * NVML reads them, tests/stub_nvml.c), numbered as CUDA numbers them for a program: fastest
 * first (here: the highest compute capability first) unless CUDA_DEVICE_ORDER=PCI_BUS_ID,
 * then narrowed to the indexes of CUDA_VISIBLE_DEVICES (up to the first that is not one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stub_gpu {
    int major, minor;
    char name[96];
};

static int listed(struct stub_gpu *out, int max)
{
    const char *p = getenv("STUB_NVML_GPUS");
    int n = 0;
    while (p && *p && n < max) {
        const char *end = p + strcspn(p, ";"), *bar = memchr(p, '|', (size_t)(end - p));
        size_t len = bar ? (size_t)(end - bar - 1) : 0;
        if (!bar || sscanf(p, "%d.%d", &out[n].major, &out[n].minor) != 2 || len >= 96)
            break;
        memcpy(out[n].name, bar + 1, len);
        out[n++].name[len] = '\0';
        p = *end ? end + 1 : end;
    }
    return n;
}

static int faster(const void *a, const void *b)
{
    const struct stub_gpu *x = a, *y = b;
    return (y->major * 10 + y->minor) - (x->major * 10 + x->minor);
}

/* The GPUs a program sees, in CUDA's order; how many. */
static int visible(struct stub_gpu *out)
{
    struct stub_gpu all[16];
    int n = listed(all, 16);
    const char *order = getenv("CUDA_DEVICE_ORDER");
    if (!order || strcmp(order, "PCI_BUS_ID"))
        qsort(all, (size_t)n, sizeof(all[0]), faster);
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    if (!v) {
        memcpy(out, all, sizeof(all[0]) * (size_t)n);
        return n;
    }
    int k = 0;
    for (const char *p = v; *p && k < n;) {
        char *end;
        long i = strtol(p, &end, 10);
        if (end == p || i < 0 || i >= n)
            break;
        out[k++] = all[i];
        p = *end == ',' ? end + 1 : end;
    }
    return k;
}

int cuInit(unsigned flags)
{
    struct stub_gpu g[16];
    (void)flags;
    return visible(g) ? 0 : 100; /* CUDA_ERROR_NO_DEVICE */
}

int cuDriverGetVersion(int *v)
{
    *v = getenv("STUB_CUDA_VERSION") ? atoi(getenv("STUB_CUDA_VERSION")) : 12020;
    return 0;
}

int cuDeviceGetCount(int *count)
{
    struct stub_gpu g[16];
    *count = visible(g);
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    *dev = ordinal;
    return 0;
}

int cuDeviceGetName(char *name, int len, int dev)
{
    struct stub_gpu g[16];
    if (dev >= visible(g))
        return 101; /* CUDA_ERROR_INVALID_DEVICE */
    snprintf(name, (size_t)len, "%s", g[dev].name);
    return 0;
}

int cuDeviceGetAttribute(int *value, int attr, int dev)
{
    struct stub_gpu g[16];
    if (dev >= visible(g) || (attr != 75 && attr != 76))
        return 101;
    *value = attr == 75 ? g[dev].major : g[dev].minor;
    return 0;
}
