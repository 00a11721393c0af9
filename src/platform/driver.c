/* The NVIDIA driver's version, asked of NVML and of the CUDA driver the same way on both
 * platforms through the loader's primitives (loader.h); the files' names differ. */
#include "fs.h"
#include "loader.h"

#include <stdlib.h>
#include <string.h>

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_version_fn)(char *, unsigned);
typedef int (*cu_version_fn)(int *);

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
        note_source(out, cuda, get);
        loader_keep(cuda);
    }
    free(dirs);
}
