/* The host layer of the doctor judges the platform's facts: Windows' junctions, long paths
 * and execution policy, decided here from given facts on any platform. */
#include "engine/doctor/doctor.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static cdm_ctx ctx;

/* Run the host layer on the given facts; the report has what it added. */
static void judge(const struct host_facts *facts, struct cdm_doctor_report *r)
{
    struct doctor d;
    memset(&d, 0, sizeof(d));
    memset(r, 0, sizeof(*r));
    d.ctx = &ctx;
    d.report = r;
    d.host = *facts;
    d.host_probed = true;
    for (size_t i = 0; i < doctor_host_layer.count; i++)
        doctor_host_layer.checks[i](&d);
}

static const struct cdm_check *find(const struct cdm_doctor_report *r, const char *name)
{
    for (size_t i = 0; i < r->count; i++)
        if (!strcmp(r->checks[i].name, name))
            return &r->checks[i];
    return NULL;
}

static struct host_fact known(const char *value)
{
    struct host_fact f = {HOST_FACT_KNOWN, "", ""};
    copy_text(f.value, sizeof(f.value), value); /* a fact as the report shows it */
    return f;
}

static const struct host_fact unknown = {HOST_FACT_UNKNOWN, "", "Access is denied."};

/* One check's status and detail for facts where only that one fact is set. */
static void expect(struct host_facts facts, const char *name, enum cdm_check_status status,
                   const char *detail, bool has_fix)
{
    struct cdm_doctor_report r;
    judge(&facts, &r);
    const struct cdm_check *c = find(&r, name);
    ok(r.count == 1 && c, "%s: one check", name);
    if (c) {
        is_str(cdm_check_status_name(c->status), cdm_check_status_name(status), "%s: %s", name,
               cdm_check_status_name(status));
        is_str(c->detail, detail, "%s: the detail", name);
        ok(!c->fix == !has_fix, "%s: %s", name, has_fix ? "a fix" : "no fix");
    }
    cdm_doctor_report_free(&r);
}

int main(void)
{
    ctx.root = xstrdup("C:\\cudnn_archive");
    struct host_facts none;
    memset(&none, 0, sizeof(none));
    struct cdm_doctor_report r;
    judge(&none, &r);
    is_int(r.count, 0, "facts the platform does not have add no checks (POSIX)");
    cdm_doctor_report_free(&r);

    struct host_facts f = none;
    f.store_fs = known("NTFS");
    expect(f, "windows.junctions", CDM_CHECK_OK, "the store is on NTFS, which supports junctions",
           false);
    f.store_fs = known("refs");
    expect(f, "windows.junctions", CDM_CHECK_OK, "the store is on refs, which supports junctions",
           false);
    f.store_fs = known("FAT32");
    expect(f, "windows.junctions", CDM_CHECK_FAIL, "the store is on FAT32, which has no junctions",
           true);
    f.store_fs = unknown;
    expect(f, "windows.junctions", CDM_CHECK_SKIP,
           "cannot read the file system of 'C:\\cudnn_archive': Access is denied.", false);

    f = none;
    f.long_paths = known("1");
    expect(f, "windows.long_paths", CDM_CHECK_OK, "long paths are enabled", false);
    const char *off = "long paths are not enabled: paths over 260 characters below the store "
                      "or a project fail in programs that do not opt in";
    f.long_paths = known("0");
    expect(f, "windows.long_paths", CDM_CHECK_WARN, off, true);
    f.long_paths = known("");
    expect(f, "windows.long_paths", CDM_CHECK_WARN, off, true);
    f.long_paths = unknown;
    expect(f, "windows.long_paths", CDM_CHECK_SKIP,
           "cannot read LongPathsEnabled: Access is denied.", false);

    f = none;
    f.exec_policy = known("RemoteSigned");
    expect(f, "windows.execution_policy", CDM_CHECK_OK,
           "PowerShell's execution policy is RemoteSigned", false);
    f.exec_policy = known("");
    expect(f, "windows.execution_policy", CDM_CHECK_WARN,
           "PowerShell's execution policy is Restricted (the default): a profile or script "
           "that runs 'cdm activate' would be blocked (typed at the prompt it works)",
           true);
    f.exec_policy = known("allsigned");
    expect(f, "windows.execution_policy", CDM_CHECK_WARN,
           "PowerShell's execution policy is allsigned: a profile or script that runs 'cdm "
           "activate' would be blocked (typed at the prompt it works)",
           true);
    f.exec_policy = unknown;
    expect(f, "windows.execution_policy", CDM_CHECK_SKIP,
           "cannot read PowerShell's execution policy: Access is denied.", false);

    /* The facts this platform returns: Windows has all three, POSIX none. */
    struct host_facts here;
    loader_host_facts(".", &here);
    bool windows = !strncmp(cdm_host_platform(), "windows", 7);
    ok((here.store_fs.state != HOST_FACT_NONE) == windows, "the store's file system: %s",
       windows ? "a Windows fact" : "none on POSIX");
    ok((here.long_paths.state != HOST_FACT_NONE) == windows, "long paths: %s",
       windows ? "a Windows fact" : "none on POSIX");
    ok((here.exec_policy.state != HOST_FACT_NONE) == windows, "execution policy: %s",
       windows ? "a Windows fact" : "none on POSIX");
    if (windows)
        printf("# store fs: %d '%s' %s; long paths: %d '%s'; policy: %d '%s'\n",
               here.store_fs.state, here.store_fs.value, here.store_fs.why, here.long_paths.state,
               here.long_paths.value, here.exec_policy.state, here.exec_policy.value);
    free(ctx.root);
    return tap_done();
}
