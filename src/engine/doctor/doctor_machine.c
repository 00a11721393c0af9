/* The doctor's machine layer: the GPUs this process may use, the examined install against
 * them and the driver (gpu_rules.h), and the version 'cdm resolve' would choose. */
#include "choose.h"
#include "doctor.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

static void check_gpus(struct doctor *d)
{
    struct machine *m = xcalloc(1, sizeof(*m));
    machine_facts(d->ctx, true, m); /* asked now: the doctor reports what is, not a record */
    struct strbuf gpus = STRBUF_INIT;
    machine_describe_gpus(m, &gpus);
    if (!m->drv.found)
        doctor_add(d, "machine.gpu", CDM_CHECK_SKIP, NULL, "no NVIDIA driver (see 'driver')");
    else if (m->visible_cut)
        doctor_add(d, "machine.gpu", CDM_CHECK_WARN,
                   "name GPUs by index or GPU-UUID in CUDA_VISIBLE_DEVICES, each once",
                   "CUDA_VISIBLE_DEVICES='%s' stops at an entry that names no GPU: CUDA uses "
                   "only the %zu before it%s%s",
                   m->visible_devices, m->visible_count, m->visible_count ? ": " : "",
                   sb_str(&gpus));
    else if (!m->visible_count)
        doctor_add(d, "machine.gpu", CDM_CHECK_WARN,
                   m->visible_set ? "check CUDA_VISIBLE_DEVICES"
                                  : "check the GPU with 'nvidia-smi'",
                   "no GPU visible%s%s%s", m->visible_set ? " (CUDA_VISIBLE_DEVICES)" : "",
                   *m->drv.gpu_error ? ": " : "", m->drv.gpu_error);
    else
        doctor_add(d, "machine.gpu", CDM_CHECK_OK, NULL, "%zu GPU%s: %s", m->visible_count,
                   m->visible_count == 1 ? "" : "s", sb_str(&gpus));
    sb_free(&gpus);
    if (!d->have_install || !d->native || !m->drv.found) {
        doctor_add(d, "machine.cudnn", CDM_CHECK_SKIP, NULL, "%s",
                   !d->have_install ? "no cuDNN install to examine"
                   : !d->native     ? "the install is for another platform"
                                    : "no NVIDIA driver to hold it to");
        free(m);
        return;
    }
    struct cdm_candidate c = {.cuda = d->install.cuda, .installed = true, .accepted = true};
    COPY_STR_ARRAY(c.id, d->install.id);
    COPY_STR_ARRAY(c.version, d->install.version);
    judge_machine(m, fs_host_is_windows(), &c);
    const struct cdm_choice_reason *bad = NULL;
    for (size_t i = 0; i < c.reason_count && !bad; i++)
        if (c.reasons[i].refuses)
            bad = &c.reasons[i];
    if (bad)
        doctor_add(d, "machine.cudnn", CDM_CHECK_FAIL,
                   "link a version this machine runs: 'cdm resolve' lists them, 'cdm link "
                   "PROJECT auto' takes the newest",
                   "this machine cannot run %s: %s", d->install.id, bad->text);
    else
        doctor_add(d, "machine.cudnn", CDM_CHECK_OK, NULL,
                   "every visible GPU has code in %s, and the driver runs its CUDA %d build",
                   d->install.id, d->install.cuda);
    free(c.reasons);
    free(m);
}

static void check_resolve(struct doctor *d)
{
    if (!d->store_exists) {
        doctor_add(d, "resolve", CDM_CHECK_SKIP, NULL, "no store: nothing to choose from");
        return;
    }
    /* what 'cdm link PROJECT auto' would take: the pin is not obeyed there */
    struct cdm_choose_request req = {d->have_project ? d->project.path : NULL, false, false, 0,
                                     true};
    struct cdm_choice ch;
    if (cdm_choose(d->ctx, &req, &ch) != CDM_OK) {
        doctor_add(d, "resolve", CDM_CHECK_WARN, "run 'cdm resolve' to see why",
                   "could not choose: %s", cdm_error_message(d->ctx));
        return;
    }
    const char *have = d->have_install ? d->install.id : "";
    if (!ch.chosen)
        doctor_add(d, "resolve", CDM_CHECK_WARN,
                   "install a version this machine and project accept ('cdm resolve "
                   "--available' lists what [fetch] base offers)",
                   "none of the %zu installs is accepted here ('cdm resolve' says why)", ch.count);
    else if (!strcmp(ch.chosen->id, have))
        doctor_add(d, "resolve", CDM_CHECK_OK, NULL,
                   "%s is the newest install this machine and project accept", have);
    else
        doctor_add(d, "resolve", *have ? CDM_CHECK_WARN : CDM_CHECK_OK,
                   *have ? "'cdm link PROJECT auto' links it" : NULL,
                   "the newest install this machine and project accept is %s%s%s", ch.chosen->id,
                   *have ? ", not " : "", have);
    cdm_choice_free(&ch);
}

static const doctor_check_fn checks[] = {check_gpus, check_resolve};

const struct doctor_layer doctor_machine_layer = {"machine", checks, CDM_ARRAY_LEN(checks)};
