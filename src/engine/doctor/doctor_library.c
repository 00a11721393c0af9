/* The doctor's library layer: load the install's main cuDNN library by its absolute path
 * and ask it its version, its CUDA runtime, and for a handle, in a child process where the
 * platform has one (platform/probe.h): a crash, an abort or a hang in the library is a
 * failed check naming the step, and the report goes on. */
#include "doctor.h"
#include "platform/fs.h"
#include "platform/probe.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

/* How long the library may take to answer: cudnnCreate starts the GPU, which takes a few
 * seconds on a cold machine. CDM_PROBE_TIMEOUT_MS overrides it (the tests' hanging
 * stand-in). */
static unsigned probe_timeout_ms(void)
{
    char *given = fs_getenv("CDM_PROBE_TIMEOUT_MS");
    long ms = given ? strtol(given, NULL, 10) : 0;
    free(given);
    return ms > 0 && ms < 3600000 ? (unsigned)ms : 120000;
}

/* The install's folder is on PATH now: cuDNN on Windows opens its sub-libraries by name,
 * and the DLL search finds them through PATH, not beside the DLL that asks. */
static bool lib_dir_on_path(const struct doctor *d)
{
    char *list = fs_getenv("PATH");
    bool on = false;
    for (char *p = list, *next; p && *p && !on; p = next) {
        char *sep = strchr(p, loader_names.list_sep);
        next = sep ? sep + 1 : p + strlen(p);
        if (sep)
            *sep = '\0';
        on = *p && fs_same_path(p, d->lib_dir);
    }
    free(list);
    return on;
}

/* A step the library did not answer: it crashed, aborted or hung there. */
static bool died_at(struct doctor *d, enum probe_step step, const char *check)
{
    if (d->probe.stopped != step)
        return false;
    char *fix = d->windows && !lib_dir_on_path(d)
                    ? xstrdup("cuDNN opens its sub-libraries by name, and Windows looks for "
                              "them on PATH, not beside it: activate the project ('cdm "
                              "activate') so that its bin folder is on PATH (the same.* checks "
                              "show what it then loads), and run 'cdm doctor' again")
                    : xasprintf("a cuDNN sub-library or the CUDA runtime it needs may be "
                                "missing: see the deps.* and same.* checks, and 'cdm verify %s'",
                                d->install.id);
    /* what the library said before it went (Windows hands it back) is the best why */
    doctor_add(d, check, CDM_CHECK_FAIL, fix, "'%s' %s %s, asked in a child process%s%s%s",
               d->main_lib, d->probe.death, probe_step_name(step),
               *d->probe.said ? "; it wrote: '" : "", d->probe.said, *d->probe.said ? "'" : "");
    free(fix);
    return true;
}

static void check_load(struct doctor *d)
{
    if (!doctor_need_install(d, "library.load"))
        return;
    if (fs_kind(d->main_lib) == FS_NONE) {
        char *fix =
            xasprintf("run 'cdm verify %s'; install its archive again with --force", d->install.id);
        doctor_add(d, "library.load", CDM_CHECK_FAIL, fix, "%s has no '%s'", d->install.id,
                   d->main_lib);
        free(fix);
        return;
    }
    cudnn_probe(d->main_lib, probe_timeout_ms(), &d->probe);
    d->probed = true;
    if (died_at(d, PROBE_LOAD, "library.load"))
        return;
    if (!d->probe.loaded) {
        doctor_add(d, "library.load", CDM_CHECK_FAIL,
                   "the deps.* checks below say why: a library it needs is missing, or a file is "
                   "no library",
                   "cannot load '%s': %s", d->main_lib, d->probe.why);
        return;
    }
    doctor_add(d, "library.load", CDM_CHECK_OK, NULL, "loaded '%s'", d->main_lib);
}

static bool loaded(const struct doctor *d)
{
    return d->probed && d->probe.loaded;
}

/* The library died at an earlier step than check's: check was never asked. */
static bool died_before(struct doctor *d, enum probe_step step, const char *check)
{
    if (!loaded(d) || d->probe.stopped >= step)
        return false;
    doctor_add(d, check, CDM_CHECK_SKIP, NULL, "not asked: the library %s %s", d->probe.death,
               probe_step_name(d->probe.stopped));
    return true;
}

static void check_version(struct doctor *d)
{
    if (!loaded(d)) {
        doctor_add(d, "library.version", CDM_CHECK_SKIP, NULL, "the library did not load");
        return;
    }
    if (died_at(d, PROBE_VERSION, "library.version"))
        return;
    if (!d->probe.has_version) {
        doctor_add(d, "library.version", CDM_CHECK_FAIL,
                   "the file is not cuDNN's main library; install the archive again",
                   "'%s' has no cudnnGetVersion", d->main_lib);
        return;
    }
    long v = d->probe.version;
    int ma, mi, pa;
    cudnn_version_decode(v, &ma, &mi, &pa);
    if (ma != d->major || mi != d->minor || pa != d->patch) {
        char *fix = xasprintf("the store folder was changed: run 'cdm verify %s' and install "
                              "its archive again with --force",
                              d->install.id);
        doctor_add(d, "library.version", CDM_CHECK_FAIL, fix,
                   "cudnnGetVersion() = %ld (%d.%d.%d) but the install is %s", v, ma, mi, pa,
                   d->install.version);
        free(fix);
        return;
    }
    doctor_add(d, "library.version", CDM_CHECK_OK, NULL,
               "cudnnGetVersion() = %ld (%d.%d.%d), as installed (%s)", v, ma, mi, pa,
               d->install.version);
}

static void check_cudart(struct doctor *d)
{
    if (loaded(d) && (died_at(d, PROBE_CUDART, "library.cudart") ||
                      died_before(d, PROBE_CUDART, "library.cudart")))
        return;
    if (!loaded(d) || !d->probe.has_cudart) {
        doctor_add(d, "library.cudart", CDM_CHECK_SKIP, NULL,
                   loaded(d) ? "no cudnnGetCudartVersion in the library"
                             : "the library did not load");
        return;
    }
    d->cudart = d->probe.cudart;
    int ma = (int)(d->cudart / 1000), mi = (int)(d->cudart % 1000 / 10);
    if (ma != d->install.cuda)
        doctor_add(d, "library.cudart", CDM_CHECK_WARN,
                   "check that the archive is the variant its name says",
                   "cudnnGetCudartVersion() = %ld: built with CUDA %d.%d, but installed as cuda%d",
                   d->cudart, ma, mi, d->install.cuda);
    else
        doctor_add(d, "library.cudart", CDM_CHECK_OK, NULL,
                   "cudnnGetCudartVersion() = %ld: built with CUDA %d.%d", d->cudart, ma, mi);
}

static const char *status_fix(const char *name)
{
    if (strstr(name, "NOT_INITIALIZED"))
        return "the GPU or driver is not usable: check 'nvidia-smi' and the driver checks below";
    if (strstr(name, "ARCH_MISMATCH"))
        return "this GPU is too old for this cuDNN; use an older cuDNN release";
    if (strstr(name, "SUBLIBRARY") || strstr(name, "LOADING"))
        return "a cuDNN sub-library failed to load: see the deps.* checks";
    if (strstr(name, "LICENSE"))
        return "cuDNN's licence check failed; install the archive again";
    return "see the driver and toolkit checks below";
}

static void check_handle(struct doctor *d)
{
    if (loaded(d) && (died_at(d, PROBE_CREATE, "library.handle") ||
                      died_before(d, PROBE_CREATE, "library.handle")))
        return;
    if (!loaded(d) || !d->probe.has_create) {
        doctor_add(d, "library.handle", CDM_CHECK_SKIP, NULL,
                   loaded(d) ? "no cudnnCreate/cudnnDestroy in the library"
                             : "the library did not load");
        return;
    }
    int status = d->probe.create_status;
    char buf[32];
    const char *name = d->probe.create_name;
    if (!*name) {
        snprintf(buf, sizeof(buf), "status %d", status);
        name = buf;
    }
    if (status == 0) {
        doctor_add(d, "library.handle", CDM_CHECK_OK, NULL,
                   "cudnnCreate() succeeded (%s); cudnnDestroy() done", name);
        return;
    }
    if (!doctor_driver(d)->found)
        doctor_add(d, "library.handle", CDM_CHECK_WARN,
                   "run on a machine with an NVIDIA GPU and its driver",
                   "no GPU here (no NVIDIA driver found): cudnnCreate() returned %s (%d)", name,
                   status);
    else
        doctor_add(d, "library.handle", CDM_CHECK_FAIL, status_fix(name),
                   "cudnnCreate() returned %s (%d)", name, status);
}

void cdm_probe_answers(const char *path, void (*emit)(void *arg, const char *line), void *arg)
{
    probe_ask(path, emit, arg);
}

static const doctor_check_fn checks[] = {check_load, check_version, check_cudart, check_handle};

const struct doctor_layer doctor_library_layer = {"library", checks, CDM_ARRAY_LEN(checks)};
