/* The doctor's library layer: load the install's main cuDNN library by its absolute path
 * and ask it its version, its CUDA runtime, and for a handle. */
#include "doctor.h"
#include "platform/fs.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

static void check_load(struct doctor *d)
{
    if (!doctor_need_install(d, "library.load"))
        return;
    if (fs_kind(d->main_lib) == FS_NONE) {
        char *fix =
            xasprintf("run 'cdm verify %s'; install its archive again with --force", d->install.id);
        doctor_add(d, "library.load", CDM_CHECK_FAIL, fix, "%s has no '%s'", d->install.id,
                   d->main_lib);
        free(fix);
        return;
    }
    char *why = NULL;
    d->lib = loader_open(d->main_lib, &why);
    if (!d->lib) {
        doctor_add(d, "library.load", CDM_CHECK_FAIL,
                   "see the deps.* checks below for the library that is missing",
                   "cannot load '%s': %s", d->main_lib, why);
        free(why);
        return;
    }
    doctor_add(d, "library.load", CDM_CHECK_OK, NULL, "loaded '%s'", d->main_lib);
}

typedef size_t (*size_fn)(void);
typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef const char *(*error_string_fn)(int);

static void check_version(struct doctor *d)
{
    if (!d->lib) {
        doctor_add(d, "library.version", CDM_CHECK_SKIP, NULL, "the library did not load");
        return;
    }
    size_fn get = (size_fn)loader_sym(d->lib, "cudnnGetVersion");
    if (!get) {
        doctor_add(d, "library.version", CDM_CHECK_FAIL,
                   "the file is not cuDNN's main library; install the archive again",
                   "'%s' has no cudnnGetVersion", d->main_lib);
        return;
    }
    long v = (long)get();
    int ma, mi, pa;
    cudnn_version_decode(v, &ma, &mi, &pa);
    if (ma != d->major || mi != d->minor || pa != d->patch) {
        char *fix = xasprintf("the store folder was changed: run 'cdm verify %s' and install "
                              "its archive again with --force",
                              d->install.id);
        doctor_add(d, "library.version", CDM_CHECK_FAIL, fix,
                   "cudnnGetVersion() = %ld (%d.%d.%d) but the install is %s", v, ma, mi, pa,
                   d->install.version);
        free(fix);
        return;
    }
    doctor_add(d, "library.version", CDM_CHECK_OK, NULL,
               "cudnnGetVersion() = %ld (%d.%d.%d), as installed (%s)", v, ma, mi, pa,
               d->install.version);
}

static void check_cudart(struct doctor *d)
{
    size_fn get = d->lib ? (size_fn)loader_sym(d->lib, "cudnnGetCudartVersion") : NULL;
    if (!get) {
        doctor_add(d, "library.cudart", CDM_CHECK_SKIP, NULL,
                   d->lib ? "no cudnnGetCudartVersion in the library" : "the library did not load");
        return;
    }
    d->cudart = (long)get();
    int ma = (int)(d->cudart / 1000), mi = (int)(d->cudart % 1000 / 10);
    if (ma != d->install.cuda)
        doctor_add(d, "library.cudart", CDM_CHECK_WARN,
                   "check that the archive is the variant its name says",
                   "cudnnGetCudartVersion() = %ld: built with CUDA %d.%d, but installed as cuda%d",
                   d->cudart, ma, mi, d->install.cuda);
    else
        doctor_add(d, "library.cudart", CDM_CHECK_OK, NULL,
                   "cudnnGetCudartVersion() = %ld: built with CUDA %d.%d", d->cudart, ma, mi);
}

static const char *status_fix(const char *name)
{
    if (strstr(name, "NOT_INITIALIZED"))
        return "the GPU or driver is not usable: check 'nvidia-smi' and the driver checks below";
    if (strstr(name, "ARCH_MISMATCH"))
        return "this GPU is too old for this cuDNN; use an older cuDNN release";
    if (strstr(name, "SUBLIBRARY") || strstr(name, "LOADING"))
        return "a cuDNN sub-library failed to load: see the deps.* checks";
    if (strstr(name, "LICENSE"))
        return "cuDNN's licence check failed; install the archive again";
    return "see the driver and toolkit checks below";
}

static void check_handle(struct doctor *d)
{
    create_fn create = d->lib ? (create_fn)loader_sym(d->lib, "cudnnCreate") : NULL;
    destroy_fn destroy = d->lib ? (destroy_fn)loader_sym(d->lib, "cudnnDestroy") : NULL;
    error_string_fn name_of =
        d->lib ? (error_string_fn)loader_sym(d->lib, "cudnnGetErrorString") : NULL;
    if (!create || !destroy) {
        doctor_add(d, "library.handle", CDM_CHECK_SKIP, NULL,
                   d->lib ? "no cudnnCreate/cudnnDestroy in the library"
                          : "the library did not load");
        return;
    }
    void *handle = NULL;
    int status = create(&handle);
    const char *name = name_of ? name_of(status) : NULL;
    char buf[32];
    if (!name) {
        snprintf(buf, sizeof(buf), "status %d", status);
        name = buf;
    }
    if (status == 0) {
        destroy(handle);
        doctor_add(d, "library.handle", CDM_CHECK_OK, NULL,
                   "cudnnCreate() succeeded (%s); cudnnDestroy() done", name);
        return;
    }
    if (!doctor_driver(d)->found)
        doctor_add(d, "library.handle", CDM_CHECK_WARN,
                   "run on a machine with an NVIDIA GPU and its driver",
                   "no GPU here (no NVIDIA driver found): cudnnCreate() returned %s (%d)", name,
                   status);
    else
        doctor_add(d, "library.handle", CDM_CHECK_FAIL, status_fix(name),
                   "cudnnCreate() returned %s (%d)", name, status);
}

static const doctor_check_fn checks[] = {check_load, check_version, check_cudart, check_handle};

const struct doctor_layer doctor_library_layer = {"library", checks, CDM_ARRAY_LEN(checks)};
