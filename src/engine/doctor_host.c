/* The host's own checks, which the platform makes (Windows: junctions, long paths,
 * PowerShell's execution policy). */
#include "doctor.h"

static void check_platform(struct doctor *d)
{
    loader_platform_checks(d);
}

static const doctor_check_fn checks[] = {check_platform};

const struct doctor_layer doctor_host_layer = {"host", checks, CDM_ARRAY_LEN(checks)};
