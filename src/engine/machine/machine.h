/*
 * What this machine is, for choosing a cuDNN: the NVIDIA driver (its version, the CUDA
 * version it supports) and the GPUs this process may use (their names and compute
 * capabilities, CUDA_VISIBLE_DEVICES applied), read from NVML or the CUDA driver without a
 * toolkit or a framework (the platform's loader_driver). Kept per boot in the user's state
 * folder, so that a link or an exec does not load NVML each time; the doctor asks afresh.
 */
#ifndef CDM_MACHINE_H
#define CDM_MACHINE_H

#include "internal.h"
#include "platform/loader.h"

struct machine {
    struct driver_info drv;
    /* The GPUs this process may use: indexes into drv.gpus, in CUDA's numbering for it. */
    size_t visible[DRIVER_MAX_GPUS];
    size_t visible_count;
    char visible_devices[256]; /* CUDA_VISIBLE_DEVICES as set, "" when unset */
    bool visible_set;
    bool visible_cut; /* the list ended at an entry CUDA would stop at too */
    bool cached;      /* read from this boot's record, not from the driver now */
};

/* The machine's facts: this boot's record when there is one (unless fresh), else asked of
 * the driver and recorded (a record that cannot be written is no error). */
void machine_facts(cdm_ctx *ctx, bool fresh, struct machine *out);

/* Visible GPU i of m. */
const struct driver_gpu *machine_gpu(const struct machine *m, size_t i);

/* CUDA_VISIBLE_DEVICES applied to the driver's list (NVML's order): indexes and GPU-UUID
 * prefixes, the list ending at the first entry CUDA would stop at (unknown, out of range,
 * repeated). Pure, for the tests. */
void machine_apply_visible(struct machine *m, const char *visible);

/* "NVIDIA H200 (compute capability 9.0)" for each visible GPU, joined by "; ". */
void machine_describe_gpus(const struct machine *m, struct strbuf *out);

#endif
