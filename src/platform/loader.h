/*
 * The platform's dynamic loader, as cdm doctor needs it: load a library by absolute path
 * and look up symbols (dlopen/dlsym in loader_posix.c, LoadLibraryExW/GetProcAddress in
 * loader_win32.c), the order in which the loader searches for a library's imports and
 * where it would find one (search.c), the NVIDIA driver's version (driver.c), and the
 * host's facts that decide whether links and activation work. Same API, one file per
 * platform where the platforms differ; facts only, the engine decides.
 */
#ifndef CDM_LOADER_H
#define CDM_LOADER_H

#include "binfmt.h"
#include "base/util.h"

#include <stdio.h>

/* A function from a loaded library; cast it to the function's real type before calling. */
typedef void (*loader_fn)(void);

struct loader_lib;
/* Load the library at path (absolute). Its own folder is searched first for its imports
 * where the platform allows (Windows). NULL on failure with *why (malloc'd) set. */
struct loader_lib *loader_open(const char *path, char **why);
loader_fn loader_sym(struct loader_lib *lib, const char *name);
void loader_close(struct loader_lib *lib);
/* Let go of the handle but keep the library loaded until the process ends: a library that
 * started threads (cuDNN, the CUDA runtime) is not safe to unload. The handle is the
 * system's own, so there is nothing to free. */
static inline void loader_keep(struct loader_lib *lib)
{
    (void)lib;
}
/* Load one of the system's own libraries by name, where the platform keeps them (POSIX:
 * ld.so's search; Windows: System32 only, where the driver's DLLs are). */
struct loader_lib *loader_open_system(const char *name, char **why);
/* The file a loaded library came from (malloc'd), asked through sym, one of its symbols
 * (POSIX needs one; NULL there: unknown). NULL when unknown. */
char *loader_lib_file(struct loader_lib *lib, loader_fn sym);

/* The imports of the library at path (binfmt.h). NULL on success, else why not. */
const char *loader_read_imports(const char *path, struct bin_imports *out);

/* How this platform spells what the portable loader files name. */
struct loader_names {
    char list_sep;    /* between the folders of PATH-like lists: ':' or ';' */
    const char *nvml; /* the driver's NVML: libnvidia-ml.so.1, nvml.dll */
    const char *cuda; /* the CUDA driver: libcuda.so.1, nvcuda.dll */
};
extern const struct loader_names loader_names;

/* One place the loader looks, in order: a folder, or the loader cache. */
struct search_step {
    char *dir;          /* NULL for the loader cache */
    const char *origin; /* "LD_LIBRARY_PATH", "RUNPATH of libcudnn.so.9", "PATH", ... */
};
struct search {
    struct search_step *steps;
    size_t count;
    struct ldcache cache; /* empty where the platform has none */
};
/* The loader's search order for the imports of the library at lib_path, whose imports
 * are im (for RUNPATH and $ORIGIN). With im NULL: the order a program uses to find a
 * library it loads by name (no RUNPATH). */
void loader_search_order(const char *lib_path, const struct bin_imports *im, struct search *out);
/* Append one step to s, or one per folder of a list separated by sep. Empty parts (the
 * current folder to ld.so) are left out: the doctor's answer must not depend on where it
 * ran. With origin_dir, $ORIGIN and ${ORIGIN} in a folder stand for it. origin must be
 * a string that lives as long as s (a literal). */
void search_add(struct search *s, const char *dir, const char *origin);
void search_add_list(struct search *s, const char *list, char sep, const char *origin_dir,
                     const char *origin);
/* The same for a program whose path list (LD_LIBRARY_PATH, or PATH on Windows) is
 * path_list (NULL: unset) instead of this process's: an activated project's program. */
void loader_search_order_with(const char *lib_path, const struct bin_imports *im,
                              const char *path_list, struct search *out);
void search_free(struct search *s);
/* Where the loader would find name, following s from step start: the path (malloc'd), and
 * in *step_out (may be NULL) the step that found it; NULL when nowhere. With im, files of
 * another machine or word size than im's are passed over, as ld.so does. */
char *search_find(const struct search *s, const char *name, const struct bin_imports *im,
                  size_t start, size_t *step_out);
/* Names the loader never looks up in folders (Windows API sets): treated as present. */
bool loader_is_builtin(const char *name);

/* The NVIDIA driver, found as the loader would, or in the folders of CDM_DRIVER_LIB_PATH
 * (a PATH-like list; set, it replaces the loader's search: tests use it). */
#define DRIVER_MAX_GPUS 64
struct driver_gpu {
    char name[96];          /* "NVIDIA H200" */
    char uuid[96];          /* "GPU-5f1c...", "" when the driver API answered (it gives bytes) */
    int cc_major, cc_minor; /* compute capability */
};
struct driver_info {
    bool found;        /* a driver library loaded */
    char version[96];  /* from NVML, "" when unknown */
    int cuda_version;  /* cuDriverGetVersion, 0 when unknown (13000 = 13.0) */
    char source[4096]; /* the libraries that answered */
    char error[512];   /* why the driver could not be asked, "" when it was */
    /* The GPUs, from NVML in its (PCI bus) order, all of them whatever
     * CUDA_VISIBLE_DEVICES says; else from the CUDA driver, which has applied it already. */
    bool gpus_asked;    /* some library answered how many GPUs there are */
    bool gpus_filtered; /* the list is the CUDA driver's: CUDA_VISIBLE_DEVICES applied */
    size_t gpu_count;
    struct driver_gpu gpus[DRIVER_MAX_GPUS];
    char gpu_error[256]; /* why the GPUs could not be listed, "" when they were */
};
void loader_driver(struct driver_info *out);
/* The GPU list asked again of the CUDA driver alone, which numbers GPUs as CUDA does for
 * this process (CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER applied); out unchanged when
 * there is no CUDA driver. */
void loader_cuda_gpus(struct driver_info *out);

/* Something that names this boot of the machine and changes at the next (Linux's
 * boot_id; on Windows the boot's time): what facts are kept for. false when unknown. */
bool loader_boot_id(char *out, size_t size);

/* Run program (a path, or a name found on PATH) with one argument and return its standard
 * output, malloc'd; NULL when it cannot run or fails. */
char *loader_run_capture(const char *program, const char *arg);

/* Facts about this host that decide whether cdm's links and activation work on it, in the
 * system's own spelling; the engine judges them. */
enum host_fact_state {
    HOST_FACT_NONE,    /* the platform has no such thing (POSIX has none of these) */
    HOST_FACT_UNKNOWN, /* it has, but it could not be read: see why */
    HOST_FACT_KNOWN,
};
struct host_fact {
    enum host_fact_state state;
    char value[64];
    char why[512];
};
struct host_facts {
    struct host_fact store_fs;    /* the file system of the store's volume: "NTFS", "FAT32" */
    struct host_fact long_paths;  /* LongPathsEnabled: "1" when on, "" when not set (off) */
    struct host_fact exec_policy; /* PowerShell's execution policy, the user's else the
                                   * machine's; "" when neither is set (the default) */
};
void loader_host_facts(const char *store_root, struct host_facts *out);

#endif
