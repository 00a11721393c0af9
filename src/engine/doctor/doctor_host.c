/* The host's own checks, judged from the facts the platform returns (loader_host_facts):
 * Windows' junctions, long paths and PowerShell's execution policy. A fact the platform
 * does not have adds no check; one it could not read is a skip saying why. */
#include "doctor.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct host_facts *host(struct doctor *d)
{
    if (!d->host_probed) {
        loader_host_facts(cdm_root(d->ctx), &d->host);
        d->host_probed = true;
    }
    return &d->host;
}

/* f when it is known; else NULL, after a skip for check name when the platform has the
 * fact but could not read it (what: the fact, for the message). */
static const struct host_fact *known(struct doctor *d, const struct host_fact *f, const char *name,
                                     const char *what)
{
    if (f->state == HOST_FACT_UNKNOWN)
        doctor_add(d, name, CDM_CHECK_SKIP, NULL, "cannot read %s: %s", what, f->why);
    return f->state == HOST_FACT_KNOWN ? f : NULL;
}

static void check_junctions(struct doctor *d)
{
    char *what = xasprintf("the file system of '%s'", cdm_root(d->ctx));
    const struct host_fact *fs = known(d, &host(d)->store_fs, "windows.junctions", what);
    free(what);
    if (!fs)
        return;
    if (!strcasecmp(fs->value, "NTFS") || !strcasecmp(fs->value, "ReFS"))
        doctor_add(d, "windows.junctions", CDM_CHECK_OK, NULL,
                   "the store is on %s, which supports junctions", fs->value);
    else
        doctor_add(d, "windows.junctions", CDM_CHECK_FAIL,
                   "put the store on an NTFS volume (--root, CDM_ROOT or [store] root)",
                   "the store is on %s, which has no junctions", fs->value);
}

static void check_long_paths(struct doctor *d)
{
    const struct host_fact *lp =
        known(d, &host(d)->long_paths, "windows.long_paths", "LongPathsEnabled");
    if (!lp)
        return;
    if (!strcmp(lp->value, "1"))
        doctor_add(d, "windows.long_paths", CDM_CHECK_OK, NULL, "long paths are enabled");
    else
        doctor_add(d, "windows.long_paths", CDM_CHECK_WARN,
                   "as administrator: New-ItemProperty -Path "
                   "HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem -Name "
                   "LongPathsEnabled -Value 1 -PropertyType DWORD -Force",
                   "long paths are not enabled: paths over 260 characters below the store or "
                   "a project fail in programs that do not opt in");
}

static void check_execution_policy(struct doctor *d)
{
    const struct host_fact *ep = known(d, &host(d)->exec_policy, "windows.execution_policy",
                                       "PowerShell's execution policy");
    if (!ep)
        return;
    /* Without a policy set, clients default to Restricted. Group policy can override both
     * scopes: this is a hint, not a verdict. */
    const char *policy = *ep->value ? ep->value : "Restricted (the default)";
    if (!strncasecmp(policy, "Restricted", 10) || !strcasecmp(policy, "AllSigned"))
        doctor_add(d, "windows.execution_policy", CDM_CHECK_WARN,
                   "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned, or type the "
                   "activation line at the prompt",
                   "PowerShell's execution policy is %s: a profile or script that runs "
                   "'cdm activate' would be blocked (typed at the prompt it works)",
                   policy);
    else
        doctor_add(d, "windows.execution_policy", CDM_CHECK_OK, NULL,
                   "PowerShell's execution policy is %s", policy);
}

static const doctor_check_fn checks[] = {check_junctions, check_long_paths, check_execution_policy};

const struct doctor_layer doctor_host_layer = {"host", checks, CDM_ARRAY_LEN(checks)};
