/*
 * Python environments as cuDNN users have them: virtual environments (.venv, venv,
 * VIRTUAL_ENV) and conda (CONDA_PREFIX), their site-packages, the cuDNN wheel
 * (nvidia-cudnn-cu11/cu12/cu13: site-packages/nvidia/cudnn/lib, or nvidia\cudnn\bin on
 * Windows) and the frameworks that pin it (torch, onnxruntime-gpu ... through
 * Requires-Dist in their METADATA). Reads files only; decides nothing.
 */
#ifndef CDM_PYENV_H
#define CDM_PYENV_H

#include <stdbool.h>
#include <stddef.h>

/* An installed distribution: a <name>-<version>.dist-info folder. */
struct py_dist {
    char name[128];   /* as the folder spells it: nvidia_cudnn_cu13, torch */
    char version[64]; /* 9.19.0.56 */
    char path[4096];  /* the .dist-info folder */
};

/* The site-packages folders of the environment rooted at prefix (lib/python3.X/
 * site-packages, Lib/site-packages), then those of its base interpreter when pyvenv.cfg
 * includes the system's. NULL-terminated, malloc'd (strv_free); *own gets how many
 * of them are the environment's own. */
char **py_site_packages(const char *prefix, size_t *own);

/* The first distribution in site whose normalized name (PEP 503: no case, runs of - _ .
 * as one -) starts with prefix ("nvidia-cudnn-cu", "torch"); exact: the whole name. */
bool py_find_dist(const char *site, const char *prefix, bool exact, struct py_dist *out);

/* The site-packages layout, as a message names it: "lib/python3.X/site-packages", or
 * "Lib\\site-packages" on Windows. */
const char *py_site_packages_shown(bool windows);
/* The cuDNN wheel's library folder in site, in the system's own form:
 * site/nvidia/cudnn/lib, or site\nvidia\cudnn\bin on Windows. malloc'd. */
char *py_wheel_dir_in(const char *site, bool windows);

/* The cuDNN wheel: its library folder in site (nvidia/cudnn/lib, or bin on Windows) and its
 * dist-info. False when site holds no such folder. dist->name is "" when the folder has no
 * dist-info beside it. */
bool py_cudnn_wheel(const char *site, bool windows, char **folder, struct py_dist *dist);

/* Where an environment keeps the cuDNN its frameworks load. */
enum py_cudnn_origin {
    PY_CUDNN_TORCH_LIB,      /* Windows torch wheels: torch\lib\cudnn*.dll, loaded by full path */
    PY_CUDNN_WHEEL,          /* the nvidia-cudnn-cu* wheel: nvidia/cudnn/lib (nvidia\cudnn\bin) */
    PY_CUDNN_CONDA,          /* a conda environment's cudnn package: lib (Library\bin on Windows) */
    PY_CUDNN_FRAMEWORK_DLLS, /* Windows: cudnn*.dll copied into onnxruntime\capi, ctranslate2
                              * or paddle\libs, which those load before any other folder */
};
struct py_cudnn_place {
    enum py_cudnn_origin origin;
    char *folder;        /* malloc'd */
    struct py_dist dist; /* what owns the files: the wheel, torch, or the conda package
                          * ("cudnn", its version; path: its conda-meta file); "" if none */
};
/* The first of those places the environment at prefix has (sites and own as
 * py_site_packages gives them): on Windows a framework's own DLLs first (torch\lib, then
 * onnxruntime\capi, ctranslate2, paddle\libs), since each loads its own folder's before
 * any other; then the wheel, then the conda package. False when it has none. */
bool py_cudnn_place(const char *prefix, char *const *sites, size_t own, bool windows,
                    struct py_cudnn_place *out);
/* The same for the nth of those places, in that order (0 is py_cudnn_place's): on Windows
 * an environment may keep copies in several frameworks' folders. */
bool py_cudnn_place_nth(const char *prefix, char *const *sites, size_t own, bool windows,
                        size_t nth, struct py_cudnn_place *out);
/* A Windows framework of an environment that loads cuDNN's DLLs (torch, onnxruntime-gpu,
 * ctranslate2, paddlepaddle-gpu), and its package folder where DLLs of its own would be. */
struct py_dll_framework {
    struct py_dist dist;
    char folder[4096];    /* site\torch\lib, site\onnxruntime\capi, ... */
    bool own;             /* the folder holds a cudnn*.dll, which it loads first */
    bool adds_wheel_dirs; /* torch: adds the nvidia wheels' bin folders itself */
};
/* Each of those that site holds, at most max into out; how many. */
size_t py_dll_frameworks(const char *site, struct py_dll_framework *out, size_t max);

/* "the nvidia-cudnn wheel's folder", "torch's own DLLs", "the conda package's files". */
const char *py_cudnn_origin_name(enum py_cudnn_origin origin);

/* What a framework asks of the cuDNN wheel. */
struct py_requirement {
    char framework[200]; /* "torch 2.11.0" */
    char text[256];      /* the Requires-Dist value: nvidia-cudnn-cu13==9.19.0.56; ... */
    int cuda;            /* the wheel's CUDA major (cu13), 0 when unknown */
    int major, minor;    /* the cuDNN version it names (the build's, or its lower bound) */
};
/* The Requires-Dist of dist's METADATA that names a cuDNN wheel (framework gets "name
 * version" of dist). False when it names none. */
bool py_dist_requirement(const struct py_dist *dist, struct py_requirement *out);
/* The first framework of cdm's list (torch, onnxruntime-gpu, tensorflow, jax plugins, ...)
 * in the folders sites that requires an nvidia-cudnn-cu* wheel. */
bool py_framework_requirement(char *const *sites, struct py_requirement *out);

/* The distribution (in a site-packages folder above file) whose RECORD lists file, for the
 * version of a library that came with a wheel. */
bool py_owner_of(const char *file, struct py_dist *out);

/* A Python environment cdm may meet in a project. */
enum py_env_kind { PY_VENV, PY_CONDA };
struct py_env {
    enum py_env_kind kind;
    char prefix[4096];
    const char *why; /* ".venv in the project", "VIRTUAL_ENV", "CONDA_PREFIX" */
};
/* The environments that concern the project in folder project (NULL: none): its .venv and
 * venv folders, then VIRTUAL_ENV and CONDA_PREFIX. *out malloc'd; the same folder once. */
void py_envs_find(const char *project, struct py_env **out, size_t *count);

#endif
