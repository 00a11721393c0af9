/* The NVIDIA driver's version and its GPUs, asked of NVML and of the CUDA driver the same
 * way on both platforms through the loader's primitives (loader.h); the files' names
 * differ. */
#include "fs.h"
#include "loader.h"

#include <stdlib.h>
#include <string.h>

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_version_fn)(char *, unsigned);
typedef int (*cu_version_fn)(int *);
typedef int (*nvml_count_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_text_fn)(void *, char *, unsigned);
typedef int (*nvml_cc_fn)(void *, int *, int *);
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_attr_fn)(int *, int, int);

#define CU_ATTR_CC_MAJOR 75 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
#define CU_ATTR_CC_MINOR 76

/* name from the folders of dirs when given, else where the system keeps its libraries. */
static struct loader_lib *open_driver_lib(const char *name, const char *dirs)
{
    char *why = NULL;
    struct loader_lib *lib = NULL;
    if (!dirs) {
        lib = loader_open_system(name, &why);
        free(why);
        return lib;
    }
    struct search s = {0};
    search_add_list(&s, dirs, loader_names.list_sep, NULL, "CDM_DRIVER_LIB_PATH");
    for (size_t i = 0; i < s.count && !lib; i++) {
        char *path = path_join(s.steps[i].dir, name);
        if (fs_kind(path) != FS_NONE) {
            lib = loader_open(path, &why);
            free(why);
            why = NULL;
        }
        free(path);
    }
    search_free(&s);
    return lib;
}

/* A name the driver gave, kept only when it is plain printable text. */
static void keep_text(char *dst, size_t size, const char *src)
{
    size_t n = 0;
    for (; src[n]; n++)
        if ((unsigned char)src[n] < 0x20 || src[n] == 0x7f)
            break;
    if (src[n] || !copy_str(dst, size, src))
        dst[0] = '\0';
}

/* Every GPU NVML sees, in its order; called between nvmlInit_v2 and nvmlShutdown. */
static void nvml_gpus(struct driver_info *out, struct loader_lib *nvml)
{
    loader_fn count = loader_sym(nvml, "nvmlDeviceGetCount_v2");
    loader_fn handle = loader_sym(nvml, "nvmlDeviceGetHandleByIndex_v2");
    loader_fn name = loader_sym(nvml, "nvmlDeviceGetName");
    loader_fn uuid = loader_sym(nvml, "nvmlDeviceGetUUID");
    loader_fn cc = loader_sym(nvml, "nvmlDeviceGetCudaComputeCapability");
    unsigned n = 0;
    int rc;
    if (!count || !handle || !cc) {
        snprintf(out->gpu_error, sizeof(out->gpu_error),
                 "NVML lacks nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2 or "
                 "nvmlDeviceGetCudaComputeCapability");
        return;
    }
    if ((rc = ((nvml_count_fn)count)(&n)) != 0) {
        snprintf(out->gpu_error, sizeof(out->gpu_error),
                 "nvmlDeviceGetCount_v2 failed with NVML error %d", rc);
        return;
    }
    out->gpus_asked = true;
    for (unsigned i = 0; i < n && out->gpu_count < DRIVER_MAX_GPUS; i++) {
        void *dev = NULL;
        struct driver_gpu *g = &out->gpus[out->gpu_count];
        char text[96] = "";
        if (((nvml_handle_fn)handle)(i, &dev) != 0 ||
            ((nvml_cc_fn)cc)(dev, &g->cc_major, &g->cc_minor) != 0)
            continue; /* a GPU NVML may not query (no permission) is none CUDA can use */
        if (name && ((nvml_text_fn)name)(dev, text, sizeof(text)) == 0)
            keep_text(g->name, sizeof(g->name), text);
        text[0] = '\0';
        if (uuid && ((nvml_text_fn)uuid)(dev, text, sizeof(text)) == 0)
            keep_text(g->uuid, sizeof(g->uuid), text);
        out->gpu_count++;
    }
}

/* The GPUs the CUDA driver shows this process (CUDA_VISIBLE_DEVICES applied): where NVML
 * is absent or could not list them. */
static void cuda_gpus(struct driver_info *out, struct loader_lib *cuda)
{
    loader_fn init = loader_sym(cuda, "cuInit"), count = loader_sym(cuda, "cuDeviceGetCount");
    loader_fn get = loader_sym(cuda, "cuDeviceGet"), name = loader_sym(cuda, "cuDeviceGetName");
    loader_fn attr = loader_sym(cuda, "cuDeviceGetAttribute");
    int n = 0, rc;
    if (!init || !count || !get || !attr)
        return;
    /* 100: CUDA_ERROR_NO_DEVICE, what a machine without a visible GPU answers */
    if ((rc = ((cu_init_fn)init)(0)) != 0 && rc != 100) {
        snprintf(out->gpu_error, sizeof(out->gpu_error), "cuInit failed with CUDA error %d", rc);
        return;
    }
    if (rc == 0 && ((cu_version_fn)count)(&n) != 0)
        return;
    out->gpus_asked = out->gpus_filtered = true;
    out->gpu_error[0] = '\0';
    for (int i = 0; i < n && out->gpu_count < DRIVER_MAX_GPUS; i++) {
        struct driver_gpu *g = &out->gpus[out->gpu_count];
        int dev = 0;
        char text[96] = "";
        if (((cu_get_fn)get)(&dev, i) != 0 ||
            ((cu_attr_fn)attr)(&g->cc_major, CU_ATTR_CC_MAJOR, dev) != 0 ||
            ((cu_attr_fn)attr)(&g->cc_minor, CU_ATTR_CC_MINOR, dev) != 0)
            continue;
        if (name && ((cu_name_fn)name)(text, (int)sizeof(text) - 1, dev) == 0)
            keep_text(g->name, sizeof(g->name), text);
        out->gpu_count++;
    }
}

static void note_source(struct driver_info *out, struct loader_lib *lib, loader_fn sym)
{
    char *file = loader_lib_file(lib, sym);
    size_t n = strlen(out->source);
    if (file)
        snprintf(out->source + n, sizeof(out->source) - n, "%s%s", n ? ", " : "", file);
    free(file);
}

static void ask_nvml(struct driver_info *out, struct loader_lib *nvml)
{
    loader_fn init = loader_sym(nvml, "nvmlInit_v2");
    loader_fn get = loader_sym(nvml, "nvmlSystemGetDriverVersion");
    loader_fn shut = loader_sym(nvml, "nvmlShutdown");
    char version[96] = "";
    int rc;
    if (!init || !get)
        snprintf(out->error, sizeof(out->error),
                 "NVML lacks nvmlInit_v2 or nvmlSystemGetDriverVersion");
    else if ((rc = ((nvml_init_fn)init)()) != 0)
        snprintf(out->error, sizeof(out->error), "nvmlInit_v2 failed with NVML error %d", rc);
    else {
        if ((rc = ((nvml_version_fn)get)(version, sizeof(version))) != 0)
            snprintf(out->error, sizeof(out->error),
                     "nvmlSystemGetDriverVersion failed with NVML error %d", rc);
        else if (!copy_str(out->version, sizeof(out->version), version))
            snprintf(out->error, sizeof(out->error),
                     "NVML's driver version '%s' is longer than any cdm knows", version);
        nvml_gpus(out, nvml);
        if (shut)
            ((nvml_init_fn)shut)();
    }
    note_source(out, nvml, init);
}

void loader_driver(struct driver_info *out)
{
    memset(out, 0, sizeof(*out));
    char *dirs = fs_getenv("CDM_DRIVER_LIB_PATH");
    struct loader_lib *nvml = open_driver_lib(loader_names.nvml, dirs);
    if (nvml) {
        out->found = true;
        ask_nvml(out, nvml);
        loader_close(nvml);
    }
    /* Kept loaded: cuDNN's runtime loads the driver itself, and unloading it is not safe. */
    struct loader_lib *cuda = open_driver_lib(loader_names.cuda, dirs);
    if (cuda) {
        out->found = true;
        loader_fn get = loader_sym(cuda, "cuDriverGetVersion");
        int v = 0;
        if (get && ((cu_version_fn)get)(&v) == 0)
            out->cuda_version = v;
        if (!out->gpus_asked)
            cuda_gpus(out, cuda);
        note_source(out, cuda, get);
        loader_keep(cuda);
    }
    free(dirs);
}

void loader_cuda_gpus(struct driver_info *out)
{
    char *dirs = fs_getenv("CDM_DRIVER_LIB_PATH");
    struct loader_lib *cuda = open_driver_lib(loader_names.cuda, dirs);
    free(dirs);
    if (!cuda)
        return;
    out->gpu_count = 0;
    out->gpus_asked = out->gpus_filtered = false;
    cuda_gpus(out, cuda);
    loader_keep(cuda);
}
