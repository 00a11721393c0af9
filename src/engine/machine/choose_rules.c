/* One candidate's reasons: the machine, the platform, the project's toolkit, pin and Python
 * environments. */
#include "choose.h"
#include "compat.h"
#include "frameworks.h"
#include "gpu_rules.h"
#include "platform/fs.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void add_reason(struct cdm_candidate *c, const char *rule, bool refuses, int wants_major,
                       const char *fmt, ...) CDM_PRINTF(5, 6);

static void add_reason(struct cdm_candidate *c, const char *rule, bool refuses, int wants_major,
                       const char *fmt, ...)
{
    ALLOC_GROW(c->reasons, c->reason_count);
    struct cdm_choice_reason *r = &c->reasons[c->reason_count++];
    memset(r, 0, sizeof(*r));
    if (!copy_str(r->rule, sizeof(r->rule), rule))
        r->rule[0] = '\0';
    r->refuses = refuses;
    r->wants_major = wants_major;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof(r->text), fmt, ap);
    va_end(ap);
    if (refuses)
        c->accepted = false;
}

void judge_machine(const struct machine *m, bool windows, struct cdm_candidate *c)
{
    char why[512];
    if (!m->drv.found) {
        add_reason(c, "gpu", false, 0,
                   "no NVIDIA driver here: the GPU and driver rules were "
                   "not applied");
        return;
    }
    if (!m->visible_count)
        add_reason(c, "gpu", false, 0, "no GPU visible%s: the GPU rule was not applied",
                   m->visible_set ? " (CUDA_VISIBLE_DEVICES)" : "");
    for (size_t i = 0; i < m->visible_count; i++) {
        const struct driver_gpu *g = machine_gpu(m, i);
        const char *source = NULL;
        enum compat_verdict v =
            gpu_rule_arch(c->version, c->cuda, g->cc_major, g->cc_minor, why, sizeof(why), &source);
        if (v == COMPAT_FAIL || v == COMPAT_UNKNOWN)
            add_reason(c, "gpu", v == COMPAT_FAIL, 0, "GPU %zu, %s: %s%s%s%s", i,
                       g->name[0] ? g->name : "an NVIDIA GPU", why, source ? " (" : "",
                       source ? source : "", source ? ")" : "");
    }
    enum compat_verdict v = gpu_rule_driver(c->cuda, &m->drv, windows, why, sizeof(why));
    if (v == COMPAT_FAIL || v == COMPAT_UNKNOWN)
        add_reason(c, "driver", v == COMPAT_FAIL, 0, "%s", why);
}

static void judge_project(const struct judge_ctx *j, const struct cdm_install_info *in,
                          struct cdm_candidate *c)
{
    struct version v;
    char why[512];
    if (j->has_pin && version_parse(c->version, &v) && !version_spec_matches(&j->pin, &v, c->cuda))
        add_reason(c, "pin", true, 0, "the project's pin file says %s", j->pin_text);
    if (j->has_toolkit && version_parse(c->version, &v)) {
        enum compat_verdict tv = compat_toolkit(v.part[0], v.part[1], v.part[2], c->cuda,
                                                j->tk_major, j->tk_minor, why, sizeof(why));
        if (tv == COMPAT_FAIL)
            add_reason(c, "toolkit", true, 0, "the project's CUDA %s toolkit: %s", j->toolkit, why);
    }
    for (size_t e = 0; e < j->env_count; e++) {
        struct fw_verdict *fv = NULL;
        size_t n = fw_check(j->envs[e].sites, in, &fv);
        for (size_t i = 0; i < n; i++)
            if (fv[i].problem[0] && !fv[i].warn_only)
                add_reason(c, "framework", true, fv[i].wants_major, "'%s': %s (%s; %s)",
                           j->envs[e].prefix, fv[i].problem, fv[i].rule, fv[i].source);
        free(fv);
    }
}

void judge_candidate(const struct judge_ctx *j, const struct cdm_install_info *in,
                     struct cdm_candidate *c)
{
    c->accepted = true;
    if (c->installed && strcmp(in->platform, cdm_host_platform()))
        add_reason(c, "platform", true, 0, "built for %s, and this machine is %s", in->platform,
                   cdm_host_platform());
    if (c->installed && in->state != CDM_INSTALL_OK)
        add_reason(c, "state", true, 0, "the install is %s", cdm_install_state_name(in->state));
    judge_machine(j->m, j->windows, c);
    judge_project(j, in, c);
}

void judge_ctx_free(struct judge_ctx *j)
{
    for (size_t i = 0; i < j->env_count; i++) {
        free(j->envs[i].prefix);
        strv_free(j->envs[i].sites);
    }
    free(j->envs);
}
