/* Tables from NVIDIA's cuDNN support matrices and CUDA release notes (docs/choosing.md); where
 * sources disagree the lenient value is kept. */
#include "compat.h"
#include "version.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(a, b, c) ((a)*10000 + (b)*100 + (c))
#define ANY_MINOR  99 /* "12.x" */

struct toolkit_row {
    int from, to;                   /* cuDNN versions, V(major, minor, patch), inclusive */
    int variant;                    /* the build's CUDA major */
    int tk_min_minor, tk_max_minor; /* toolkit minors of that major it supports */
};

static const struct toolkit_row toolkit_rows[] = {
    {V(8, 8, 0), V(8, 8, 99), 11, 0, 8},
    {V(8, 8, 0), V(8, 8, 99), 12, 0, 0},
    {V(8, 9, 0), V(8, 9, 4), 11, 0, 8},
    {V(8, 9, 0), V(8, 9, 4), 12, 0, 1},
    {V(8, 9, 5), V(8, 9, 6), 11, 0, 8},
    {V(8, 9, 5), V(8, 9, 6), 12, 0, 2},
    {V(8, 9, 7), V(8, 9, 99), 11, 0, 8},
    {V(8, 9, 7), V(8, 9, 99), 12, 0, ANY_MINOR}, /* disputed: nixpkgs says up to 12.8 */
    {V(9, 0, 0), V(9, 0, 99), 11, 0, 8},
    {V(9, 0, 0), V(9, 0, 99), 12, 0, 3},
    {V(9, 5, 0), V(9, 10, 2), 11, 8, 8},
    {V(9, 5, 0), V(9, 10, 2), 12, 0, 9},
    {V(9, 12, 0), V(99, 0, 0), 12, 0, ANY_MINOR},
    {V(9, 12, 0), V(99, 0, 0), 13, 0, ANY_MINOR},
};

/* Which releases each CUDA major has a build of (NVIDIA's redist manifests, docs/cudnn-facts.md:
 * cuda11 and cuda12 up to 9.10, cuda12 and cuda13 from 9.12; cuda12 from 8.8). */
static const struct {
    int cuda, first_major, first_minor, last_major, last_minor;
} variant_spans[] = {
    {11, 8, 0, 9, 10},
    {12, 8, 8, 99, 0},
    {13, 9, 12, 99, 0},
};

bool compat_variant_span(int cuda, int *first_major, int *first_minor, int *last_major,
                         int *last_minor)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(variant_spans); i++) {
        if (variant_spans[i].cuda == cuda) {
            *first_major = variant_spans[i].first_major;
            *first_minor = variant_spans[i].first_minor;
            *last_major = variant_spans[i].last_major;
            *last_minor = variant_spans[i].last_minor;
            return true;
        }
    }
    return false;
}

enum compat_verdict compat_toolkit(int major, int minor, int patch, int variant, int tk_major,
                                   int tk_minor, char *why, size_t why_size)
{
    if (variant != tk_major) {
        snprintf(why, why_size,
                 "cuDNN %d.%d.%d built for CUDA %d does not work with a CUDA %d.%d toolkit", major,
                 minor, patch, variant, tk_major, tk_minor);
        return COMPAT_FAIL;
    }
    int v = V(major, minor, patch);
    for (size_t i = 0; i < sizeof(toolkit_rows) / sizeof(toolkit_rows[0]); i++) {
        const struct toolkit_row *r = &toolkit_rows[i];
        if (v < r->from || v > r->to || r->variant != variant)
            continue;
        char range[32];
        if (r->tk_max_minor == ANY_MINOR)
            snprintf(range, sizeof(range), "%d.x", variant);
        else if (r->tk_min_minor == r->tk_max_minor)
            snprintf(range, sizeof(range), "%d.%d", variant, r->tk_min_minor);
        else
            snprintf(range, sizeof(range), "%d.%d-%d.%d", variant, r->tk_min_minor, variant,
                     r->tk_max_minor);
        if (tk_minor < r->tk_min_minor) {
            snprintf(why, why_size, "cuDNN %d.%d.%d (cuda%d) supports CUDA %s, not %d.%d", major,
                     minor, patch, variant, range, tk_major, tk_minor);
            return COMPAT_FAIL;
        }
        if (tk_minor > r->tk_max_minor) {
            snprintf(why, why_size,
                     "cuDNN %d.%d.%d (cuda%d) is listed for CUDA %s; %d.%d is newer than "
                     "NVIDIA's support matrix",
                     major, minor, patch, variant, range, tk_major, tk_minor);
            return COMPAT_WARN;
        }
        snprintf(why, why_size, "cuDNN %d.%d.%d (cuda%d) supports CUDA %s; the toolkit is %d.%d",
                 major, minor, patch, variant, range, tk_major, tk_minor);
        return COMPAT_OK;
    }
    snprintf(why, why_size,
             "cuDNN %d.%d.%d (cuda%d) and CUDA %d.%d share the major version (no finer table "
             "for this release)",
             major, minor, patch, variant, tk_major, tk_minor);
    return COMPAT_UNKNOWN;
}

struct driver_row {
    int major, minor;
    const char *linux_min, *windows_min;
};

static const struct driver_row driver_rows[] = {
    {11, 0, "450.51.06", "451.82"}, {11, 1, "455.23", "456.38"},
    {11, 2, "460.27.03", "460.82"}, {11, 3, "465.19.01", "465.89"},
    {11, 4, "470.42.01", "471.11"}, {11, 5, "495.29.05", "496.04"},
    {11, 6, "510.39.01", "511.23"}, {11, 7, "515.43.04", "516.01"},
    {11, 8, "520.61.05", "520.06"}, /* some copies say 522.06 for Windows */
    {12, 0, "525.60.13", "527.41"}, {12, 1, "530.30.02", "531.14"},
    {12, 2, "535.54.03", "536.25"}, {12, 3, "545.23.06", "545.84"},
    {12, 4, "550.54.14", "551.61"}, {12, 5, "555.42.02", "555.85"},
    {12, 6, "560.28.03", "560.76"}, {12, 8, "570.26", "570.65"},
    {12, 9, "575.51.03", "576.02"}, {13, 0, "580.65.06", "580.65.06"}, /* Windows unknown */
};

/* Minor-version compatibility: a driver at or above this runs code of that CUDA major. */
static const struct driver_row driver_floors[] = {
    {11, 0, "450.80.02", "452.39"},
    {12, 0, "525.60.13", "527.41"},
    {13, 0, "580", "580"},
};

int compat_driver_compare(const char *a, const char *b)
{
    while (*a || *b) {
        char *ea, *eb;
        long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
        if (x != y)
            return x < y ? -1 : 1;
        a = *ea == '.' ? ea + 1 : ea + strlen(ea);
        b = *eb == '.' ? eb + 1 : eb + strlen(eb);
    }
    return 0;
}

enum compat_verdict compat_driver(const char *driver, int tk_major, int tk_minor, bool windows,
                                  char *why, size_t why_size)
{
    /* The newest row at or below the toolkit: 12.7 needs what 12.6 needs at least. */
    const struct driver_row *row = NULL, *floor = NULL;
    for (size_t i = 0; i < sizeof(driver_rows) / sizeof(driver_rows[0]); i++)
        if (driver_rows[i].major == tk_major && driver_rows[i].minor <= tk_minor)
            row = &driver_rows[i];
    for (size_t i = 0; i < sizeof(driver_floors) / sizeof(driver_floors[0]); i++)
        if (driver_floors[i].major == tk_major)
            floor = &driver_floors[i];
    if (!row || !floor) {
        snprintf(why, why_size, "no minimum driver known for CUDA %d.%d", tk_major, tk_minor);
        return COMPAT_UNKNOWN;
    }
    const char *min = windows ? row->windows_min : row->linux_min;
    const char *fl = windows ? floor->windows_min : floor->linux_min;
    if (compat_driver_compare(driver, min) >= 0) {
        snprintf(why, why_size, "driver %s meets CUDA %d.%d's minimum %s", driver, tk_major,
                 tk_minor, min);
        return COMPAT_OK;
    }
    if (compat_driver_compare(driver, fl) >= 0) {
        snprintf(why, why_size,
                 "driver %s is below CUDA %d.%d's minimum %s but at or above the CUDA %d "
                 "minor-version-compatibility floor %s: most code runs, newer PTX does not",
                 driver, tk_major, tk_minor, min, tk_major, fl);
        return COMPAT_WARN;
    }
    snprintf(why, why_size, "driver %s is too old for CUDA %d.%d (needs %s, at least %s)", driver,
             tk_major, tk_minor, min, fl);
    return COMPAT_FAIL;
}

enum compat_verdict compat_install_toolkit(const char *version, int cuda,
                                           const char *toolkit_version, char *why, size_t why_size)
{
    struct version v, t;
    *why = '\0';
    if (!version_parse(version, &v) || !version_parse(toolkit_version, &t) || t.count < 2)
        return COMPAT_OK;
    return compat_toolkit(v.part[0], v.count > 1 ? v.part[1] : 0, v.count > 2 ? v.part[2] : 0, cuda,
                          t.part[0], t.part[1], why, why_size);
}
