/*
 * The version that works here: the machine's GPUs and driver, and each candidate cuDNN
 * (the installs, and with offered what [fetch] base offers) judged against them, the
 * project's toolkit, every framework of its Python environments and its pin. Part of the
 * core's API in cdm.h, which includes it.
 */
#ifndef CDM_CHOOSE_H
#define CDM_CHOOSE_H

#include "cdm.h" /* its types; cdm.h includes this file in turn, past them */

#define CDM_MAX_GPUS 64

struct cdm_gpu {
    int index;     /* as CUDA numbers it for a program run here */
    char name[96]; /* "NVIDIA H200" */
    char uuid[96]; /* "GPU-...", "" when unknown */
    int cc_major, cc_minor;
};

struct cdm_machine_facts {
    bool driver_found;       /* an NVIDIA driver library answered */
    char driver_version[96]; /* "580.159.04", "" when unknown */
    int driver_cuda;         /* the CUDA version it supports (13000 = 13.0), 0 when unknown */
    char driver_source[512]; /* the libraries that answered */
    char error[512];         /* why the driver or its GPUs could not be asked, "" when they were */
    bool gpus_known;         /* the driver said how many GPUs there are */
    size_t gpu_count;        /* the GPUs this process may use */
    struct cdm_gpu gpus[CDM_MAX_GPUS];
    size_t hidden;    /* GPUs CUDA_VISIBLE_DEVICES leaves out */
    bool visible_set; /* CUDA_VISIBLE_DEVICES is set */
    char visible_devices[256];
    bool cached; /* from this boot's record, not asked now */
};

/* The machine's facts (fresh: ask the driver now, not this boot's record). */
void cdm_machine(cdm_ctx *ctx, bool fresh, struct cdm_machine_facts *out);

/* One reason a candidate is refused, or a note on it. */
struct cdm_choice_reason {
    char rule[16]; /* "platform", "gpu", "driver", "toolkit", "framework", "pin", "state" */
    char text[640];
    bool refuses;    /* false: a note, such as a rule that could not be applied */
    int wants_major; /* a framework's refusal: the cuDNN major it asks for (0: none named) */
};

struct cdm_candidate {
    char id[64];      /* 9.19.0.56-cuda13 */
    char version[32]; /* 9.19.0.56 */
    int cuda;
    bool installed; /* false: offered by [fetch] base, not installed */
    bool accepted;
    struct cdm_choice_reason *reasons;
    size_t reason_count;
};

struct cdm_choose_request {
    const char *project; /* NULL: the nearest from the current folder, if any */
    bool offered;        /* also what [fetch] base offers (reads the manifests) */
    bool fresh;          /* the machine's facts asked now */
    int cuda;            /* only builds for this CUDA major; 0 for any */
    bool ignore_pin;     /* the pin is no rule: 'link auto' chooses anew (and writes it) */
};

struct cdm_choice {
    struct cdm_machine_facts machine;
    char project[4096];               /* "" without a project */
    char pin[64];                     /* the project's pin, "" for none */
    char toolkit[64];                 /* the project's recorded toolkit version, "" for none */
    char **environments;              /* the Python environments asked, NULL-terminated */
    struct cdm_candidate *candidates; /* newest first */
    size_t count;
    const struct cdm_candidate *chosen;       /* the newest accepted; NULL when none is */
    const struct cdm_candidate *per_major[8]; /* the newest per cuDNN major that every rule
                                               * but a framework wanting another major
                                               * accepts, newest major first */
    size_t majors;
};

int cdm_choose(cdm_ctx *ctx, const struct cdm_choose_request *req, struct cdm_choice *out);
void cdm_choice_free(struct cdm_choice *c);
/* cdm_choose for 'auto': fails (CDM_ENOTFOUND, naming each candidate's first refusal) when
 * no candidate is accepted, so that out->chosen is set on success. */
int cdm_choose_auto(cdm_ctx *ctx, const struct cdm_choose_request *req, struct cdm_choice *out);

/* The install in refused by this machine's GPU or driver: an error naming the GPU and the
 * rule, for what ("link"); with force a warning instead. CDM_OK when the machine can run it
 * or there is no GPU to judge it by. */
int cdm_machine_check_install(cdm_ctx *ctx, const struct cdm_install_info *in, bool force,
                              const char *what);

#endif
