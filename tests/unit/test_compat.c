/* The compatibility tables (compat.c) and the version encodings. */
#include "engine/toolkit/compat.h"
#include "tap.h"
#include "engine/core/version.h"

int main(void)
{
    char why[512];
    is_int(compat_toolkit(9, 1, 0, 12, 11, 8, why, sizeof(why)), COMPAT_FAIL,
           "a cuda12 build under an 11.8 toolkit fails: %s", why);
    is_int(compat_toolkit(8, 8, 0, 11, 12, 0, why, sizeof(why)), COMPAT_FAIL,
           "an 11.x build under CUDA 12 fails");
    is_int(compat_toolkit(8, 8, 0, 11, 11, 8, why, sizeof(why)), COMPAT_OK,
           "8.8.0 cuda11 with 11.8");
    is_int(compat_toolkit(8, 9, 5, 12, 12, 4, why, sizeof(why)), COMPAT_WARN,
           "8.9.5 cuda12 with 12.4 is past the matrix: %s", why);
    is_int(compat_toolkit(9, 6, 0, 11, 11, 2, why, sizeof(why)), COMPAT_FAIL,
           "9.6 cuda11 needs 11.8 exactly");
    is_int(compat_toolkit(9, 19, 0, 13, 13, 0, why, sizeof(why)), COMPAT_OK,
           "9.19 cuda13 with 13.0");
    is_int(compat_toolkit(9, 2, 1, 12, 12, 4, why, sizeof(why)), COMPAT_UNKNOWN,
           "9.2 has no row: only majors compared");

    int fa, fi, la, li;
    ok(compat_variant_span(13, &fa, &fi, &la, &li) && fa == 9 && fi == 12,
       "cuda13 builds start at cuDNN 9.12 (so 8.8 --cuda 13 is never proposed)");
    ok(compat_variant_span(11, &fa, &fi, &la, &li) && la == 9 && li == 10,
       "cuda11 builds end at cuDNN 9.10");
    ok(!compat_variant_span(14, &fa, &fi, &la, &li), "CUDA 14: no builds known");

    ok(compat_driver_compare("580.159.04", "580.65.06") > 0, "580.159 is newer than 580.65");
    ok(compat_driver_compare("525.60.13", "525.60.13") == 0, "equal versions");
    ok(compat_driver_compare("580", "580.65.06") < 0, "a shorter version is older");
    is_int(compat_driver("550.54.14", 12, 4, false, why, sizeof(why)), COMPAT_OK,
           "12.4 minimum met");
    is_int(compat_driver("535.54.03", 12, 4, false, why, sizeof(why)), COMPAT_WARN,
           "below 12.4's minimum, above the 12.x floor: %s", why);
    is_int(compat_driver("470.42.01", 12, 4, false, why, sizeof(why)), COMPAT_FAIL,
           "below the 12.x floor");
    is_int(compat_driver("560.30", 12, 7, false, why, sizeof(why)), COMPAT_OK,
           "12.7 (no row) uses 12.6's minimum");
    is_int(compat_driver("527.41", 12, 0, true, why, sizeof(why)), COMPAT_OK, "Windows column");
    is_int(compat_driver("999", 14, 0, false, why, sizeof(why)), COMPAT_UNKNOWN, "CUDA 14 unknown");

    int ma, mi, pa;
    cudnn_version_decode(8907, &ma, &mi, &pa);
    ok(ma == 8 && mi == 9 && pa == 7, "8907 decodes as 8.9.7 (the old encoding)");
    cudnn_version_decode(91900, &ma, &mi, &pa);
    ok(ma == 9 && mi == 19 && pa == 0, "91900 decodes as 9.19.0 (the 9.x encoding)");
    return tap_done();
}
