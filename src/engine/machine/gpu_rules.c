/* The architectures each cuDNN build has code for, from NVIDIA's cuDNN support matrices. */
#include "gpu_rules.h"
#include "version.h"

#include <stdio.h>
#include <string.h>

#define V(a, b, c) ((a)*10000 + (b)*100 + (c))
#define CC_MAX     12 /* the newest compute capability major the table knows */

struct arch_row {
    int from, to;    /* cuDNN versions, V(major, minor, patch), inclusive */
    int cuda;        /* the build's CUDA major */
    const char *ccs; /* the compute capabilities NVIDIA lists, as it writes them */
    const char *source;
};

static const struct arch_row arch_rows[] = {
    {V(8, 0, 0), V(8, 5, 99), 11, "3.5 5.0 6.0 6.1 7.0 7.5 8.0 8.6",
     "cuDNN 8.3.0 support matrix: SM 3.5 and later with CUDA 11"},
    {V(8, 6, 0), V(8, 9, 99), 11, "3.5 5.0 6.0 6.1 7.0 7.5 8.0 8.6 8.9 9.0",
     "cuDNN 8.9.6 support matrix, CUDA 11.8 build"},
    {V(8, 8, 0), V(8, 9, 99), 12, "5.0 6.0 6.1 7.0 7.5 8.0 8.6 8.9 9.0",
     "cuDNN 8.9.6 support matrix, CUDA 12.x build"},
    {V(9, 0, 0), V(9, 10, 99), 11, "5.0 6.0 6.1 7.0 7.5 8.0 8.6 8.9 9.0",
     "cuDNN 9.0.0, 9.5.1 and 9.10.2 support matrices, CUDA 11.8 build"},
    {V(9, 0, 0), V(9, 6, 99), 12, "5.0 6.0 6.1 7.0 7.5 8.0 8.6 8.9 9.0",
     "cuDNN 9.0.0 and 9.5.1 support matrices, CUDA 12.x build"},
    {V(9, 7, 0), V(9, 10, 99), 12, "5.0 6.0 6.1 7.0 7.5 8.0 8.6 8.9 9.0 10.0 12.0",
     "cuDNN 9.10.2 support matrix, CUDA 12.8 build (Blackwell from 9.7: "
     "microsoft/onnxruntime#24189)"},
    {V(9, 11, 0), V(99, 0, 0), 12, "7.5 8.0 8.6 8.9 9.0 10.0 12.0",
     "cuDNN 9.17.0 support matrix, CUDA 12.x build (Maxwell, Pascal and Volta left after "
     "9.10; torch/backends/cudnn/__init__.py refuses them from 9.11)"},
    {V(9, 12, 0), V(99, 0, 0), 13, "7.5 8.0 8.6 8.9 9.0 10.0 12.0",
     "cuDNN 9.17.0 support matrix, CUDA 13.x build (CUDA 13 has no code below 7.5)"},
};

/* Whether the list has code a GPU of cc major.minor runs: the same major, a minor at or
 * below its own. */
static bool has_code_for(const char *ccs, int major, int minor)
{
    for (const char *p = ccs; *p;) {
        int a = 0, b = 0, used = 0;
        if (sscanf(p, "%d.%d%n", &a, &b, &used) != 2)
            break;
        if (a == major && b <= minor)
            return true;
        p += used;
        while (*p == ' ')
            p++;
    }
    return false;
}

enum compat_verdict gpu_rule_arch(const char *version, int cuda, int cc_major, int cc_minor,
                                  char *why, size_t why_size, const char **source)
{
    struct version v;
    *source = NULL;
    if (!version_parse(version, &v) || v.count < 2) {
        snprintf(why, why_size, "'%s' is no version cdm can compare", version);
        return COMPAT_UNKNOWN;
    }
    int here = V(v.part[0], v.part[1], v.count > 2 ? v.part[2] : 0);
    for (size_t i = 0; i < CDM_ARRAY_LEN(arch_rows); i++) {
        const struct arch_row *r = &arch_rows[i];
        if (here < r->from || here > r->to || r->cuda != cuda)
            continue;
        *source = r->source;
        if (has_code_for(r->ccs, cc_major, cc_minor)) {
            snprintf(why, why_size,
                     "cuDNN %d.%d for CUDA %d has code for compute capability "
                     "%d.%d",
                     v.part[0], v.part[1], cuda, cc_major, cc_minor);
            return COMPAT_OK;
        }
        if (cc_major > CC_MAX) {
            snprintf(why, why_size,
                     "compute capability %d.%d is newer than cdm's table (cuDNN "
                     "%d.%d for CUDA %d has code for %s)",
                     cc_major, cc_minor, v.part[0], v.part[1], cuda, r->ccs);
            return COMPAT_UNKNOWN;
        }
        snprintf(why, why_size,
                 "cuDNN %d.%d for CUDA %d has no code for compute capability "
                 "%d.%d (it has %s)",
                 v.part[0], v.part[1], cuda, cc_major, cc_minor, r->ccs);
        return COMPAT_FAIL;
    }
    snprintf(why, why_size, "cdm's table has no row for cuDNN %d.%d for CUDA %d", v.part[0],
             v.part[1], cuda);
    return COMPAT_UNKNOWN;
}

enum compat_verdict gpu_rule_driver(int cuda, const struct driver_info *d, bool windows, char *why,
                                    size_t why_size)
{
    if (*d->version) {
        char inner[400];
        enum compat_verdict v = compat_driver(d->version, cuda, 0, windows, inner, sizeof(inner));
        snprintf(why, why_size, "for a CUDA %d build: %s", cuda, inner);
        return v == COMPAT_WARN ? COMPAT_OK : v;
    }
    if (d->cuda_version) {
        int ma = d->cuda_version / 1000, mi = d->cuda_version % 1000 / 10;
        snprintf(why, why_size, "the driver supports CUDA %d.%d, %s a CUDA %d build needs", ma, mi,
                 ma >= cuda ? "which is what" : "older than what", cuda);
        return ma >= cuda ? COMPAT_OK : COMPAT_FAIL;
    }
    snprintf(why, why_size, "the driver said neither its version nor its CUDA version");
    return COMPAT_UNKNOWN;
}
