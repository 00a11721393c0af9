/* cdm resolve: the candidates, each judged (choose_rules.c), and the newest accepted, in
 * all and per cuDNN major. */
#include "choose.h"
#include "upstream.h"
#include "db.h"
#include "db_attach.h"
#include "platform/fs.h"
#include "pyenv.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void facts_public(const struct machine *m, struct cdm_machine_facts *out)
{
    memset(out, 0, sizeof(*out));
    out->driver_found = m->drv.found;
    COPY_STR_ARRAY(out->driver_version, m->drv.version);
    out->driver_cuda = m->drv.cuda_version;
    if (!copy_str(out->driver_source, sizeof(out->driver_source), m->drv.source))
        snprintf(out->driver_source, sizeof(out->driver_source), "%.500s...", m->drv.source);
    snprintf(out->error, sizeof(out->error), "%.400s%s%.100s", m->drv.error,
             *m->drv.error && *m->drv.gpu_error ? "; " : "", m->drv.gpu_error);
    out->gpus_known = m->drv.gpus_asked;
    for (size_t i = 0; i < m->visible_count && i < CDM_MAX_GPUS; i++) {
        const struct driver_gpu *g = machine_gpu(m, i);
        struct cdm_gpu *o = &out->gpus[out->gpu_count++];
        o->index = (int)i;
        COPY_STR_ARRAY(o->name, g->name);
        COPY_STR_ARRAY(o->uuid, g->uuid);
        o->cc_major = g->cc_major;
        o->cc_minor = g->cc_minor;
    }
    out->hidden = m->drv.gpus_filtered ? 0 : m->drv.gpu_count - m->visible_count;
    out->visible_set = m->visible_set;
    COPY_STR_ARRAY(out->visible_devices, m->visible_devices);
    out->cached = m->cached;
}

void cdm_machine(cdm_ctx *ctx, bool fresh, struct cdm_machine_facts *out)
{
    struct machine *m = xcalloc(1, sizeof(*m));
    machine_facts(ctx, fresh, m);
    facts_public(m, out);
    free(m);
}

int cdm_machine_check_install(cdm_ctx *ctx, const struct cdm_install_info *in, bool force,
                              const char *what)
{
    if (strcmp(in->platform, cdm_host_platform()))
        return CDM_OK; /* not for this machine: nothing of its GPU applies */
    struct machine *m = xcalloc(1, sizeof(*m));
    machine_facts(ctx, false, m);
    struct cdm_candidate c = {.cuda = in->cuda, .installed = true};
    COPY_STR_ARRAY(c.id, in->id);
    COPY_STR_ARRAY(c.version, in->version);
    c.accepted = true;
    judge_machine(m, fs_host_is_windows(), &c);
    int rc = CDM_OK;
    for (size_t i = 0; i < c.reason_count && !rc; i++) {
        if (!c.reasons[i].refuses)
            continue;
        if (force)
            cdm_warn(ctx, "%s %s anyway (--force), though this machine cannot run it: %s", what,
                     in->id, c.reasons[i].text);
        else
            rc = cdm_error_set(ctx, CDM_EMISMATCH,
                               "this machine cannot run %s: %s; take a version it runs ('cdm "
                               "resolve' lists them, 'auto' picks one), or pass --force",
                               in->id, c.reasons[i].text);
        if (force)
            break;
    }
    free(c.reasons);
    free(m);
    return rc;
}

static void add_env(struct judge_ctx *j, const char *prefix)
{
    char *real = fs_realpath(prefix);
    if (!real)
        return;
    for (size_t i = 0; i < j->env_count; i++)
        if (!strcmp(j->envs[i].prefix, real)) {
            free(real);
            return;
        }
    ALLOC_GROW(j->envs, j->env_count);
    size_t own = 0;
    j->envs[j->env_count].prefix = real;
    j->envs[j->env_count++].sites = py_site_packages(real, &own);
}

/* The project's pin, toolkit and environments (its own, the shell's, those attached). */
static int gather_project(cdm_ctx *ctx, const char *dir, bool ignore_pin, struct judge_ctx *j,
                          struct cdm_choice *out)
{
    struct cdm_project p;
    bool have = false;
    int rc = CDM_OK;
    if (dir) {
        if ((rc = cdm_project_open(ctx, dir, &p)))
            return rc;
        have = true;
    } else {
        have = cdm_project_find(ctx, NULL, &p) == CDM_OK;
    }
    struct py_env *envs = NULL;
    size_t n = 0;
    /* no project yet: the environments of the folder it would be (cdm link . auto) */
    py_envs_find(have ? p.path : dir ? dir : ".", &envs, &n);
    for (size_t i = 0; i < n; i++)
        add_env(j, envs[i].prefix);
    free(envs);
    if (!have)
        return CDM_OK;
    COPY_STR_ARRAY(out->project, p.path);
    if (p.has_pin)
        COPY_STR_ARRAY(out->pin, p.pinned_id);
    if (p.has_pin && !ignore_pin && version_spec_parse(p.pinned_id, &j->pin)) {
        j->has_pin = true;
        COPY_STR_ARRAY(j->pin_text, p.pinned_id);
    }
    struct cdm_generation g;
    if (db_generation_get(ctx, p.path, 0, &g) == CDM_OK && *g.toolkit &&
        sscanf(g.toolkit, "%d.%d", &j->tk_major, &j->tk_minor) == 2) {
        j->has_toolkit = true;
        COPY_STR_ARRAY(j->toolkit, g.toolkit);
        COPY_STR_ARRAY(out->toolkit, g.toolkit);
    }
    struct db_attachment *att = NULL;
    if (db_attach_of_project(ctx, p.path, &att, &n) == CDM_OK)
        for (size_t i = 0; i < n; i++)
            add_env(j, att[i].venv);
    free(att);
    return CDM_OK;
}

static int newest_first(const void *a, const void *b)
{
    const struct cdm_candidate *x = a, *y = b;
    struct version vx, vy;
    int c = version_parse(y->version, &vy) && version_parse(x->version, &vx)
                ? version_compare(&vy, &vx)
                : strcmp(y->version, x->version);
    if (!c)
        c = y->cuda - x->cuda;
    return c ? c : (int)y->installed - (int)x->installed;
}

static void add_candidate(const struct judge_ctx *j, const struct cdm_install_info *in,
                          bool installed, struct cdm_choice *out)
{
    for (size_t i = 0; i < out->count; i++)
        if (!strcmp(out->candidates[i].id, in->id))
            return; /* offered and installed: the install stands for both */
    ALLOC_GROW(out->candidates, out->count);
    struct cdm_candidate *c = &out->candidates[out->count++];
    memset(c, 0, sizeof(*c));
    COPY_STR_ARRAY(c->id, in->id);
    COPY_STR_ARRAY(c->version, in->version);
    c->cuda = in->cuda;
    c->installed = installed;
    judge_candidate(j, in, c);
}

/* The offers of [fetch] base, judged as installs of their version would be. */
static int add_offers(cdm_ctx *ctx, const struct cdm_choose_request *req, const struct judge_ctx *j,
                      struct cdm_choice *out)
{
    struct cdm_available_request ar = {NULL, req->cuda, NULL, NULL};
    struct cdm_offer *offers = NULL;
    size_t n = 0;
    int rc = cdm_available(ctx, &ar, &offers, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        struct cdm_install_info in = {.cuda = offers[i].cuda, .state = CDM_INSTALL_OK};
        COPY_STR_ARRAY(in.version, offers[i].version);
        COPY_STR_ARRAY(in.platform, offers[i].platform);
        snprintf(in.id, sizeof(in.id), "%s-cuda%d", offers[i].version, offers[i].cuda);
        add_candidate(j, &in, false, out);
    }
    free(offers);
    return rc;
}

/* Per major: the newest candidate that only frameworks wanting another major refuse. */
static void choose_per_major(struct cdm_choice *out)
{
    for (size_t i = 0; i < out->count && out->majors < CDM_ARRAY_LEN(out->per_major); i++) {
        const struct cdm_candidate *c = &out->candidates[i];
        int major = atoi(c->version);
        bool ok = true;
        for (size_t r = 0; r < c->reason_count && ok; r++)
            ok = !c->reasons[r].refuses ||
                 (c->reasons[r].wants_major && c->reasons[r].wants_major != major);
        for (size_t k = 0; k < out->majors && ok; k++)
            ok = atoi(out->per_major[k]->version) != major;
        if (ok)
            out->per_major[out->majors++] = c;
    }
}

int cdm_choose(cdm_ctx *ctx, const struct cdm_choose_request *req, struct cdm_choice *out)
{
    memset(out, 0, sizeof(*out));
    struct machine *m = xcalloc(1, sizeof(*m));
    struct judge_ctx j = {.m = m, .windows = fs_host_is_windows()};
    struct cdm_install_info *installs = NULL;
    size_t n = 0;
    /* as it is, nothing settled: the doctor asks this too, and changes nothing */
    int rc = store_open(ctx, STORE_READ, 0);
    if (!rc)
        rc = db_install_list(ctx, &installs, &n);
    size_t own = n;
    if (!rc) /* an upstream's installs are candidates too ([store] upstream) */
        upstream_add_installs(ctx, &installs, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        if (i < own)
            store_install_state(ctx, &installs[i]);
        else if (fs_kind(installs[i].path) != FS_DIR)
            installs[i].state = CDM_INSTALL_MISSING; /* its upstream is gone */
    }
    if (!rc)
        rc = gather_project(ctx, req->project, req->ignore_pin, &j, out);
    if (!rc) {
        machine_facts(ctx, req->fresh, m);
        facts_public(m, &out->machine);
        for (size_t i = 0; i < n; i++)
            if (!req->cuda || installs[i].cuda == req->cuda)
                add_candidate(&j, &installs[i], true, out);
        if (req->offered)
            rc = add_offers(ctx, req, &j, out);
    }
    out->environments = xcalloc(j.env_count + 1, sizeof(char *));
    for (size_t i = 0; i < j.env_count; i++)
        out->environments[i] = xstrdup(j.envs[i].prefix);
    if (out->count)
        qsort(out->candidates, out->count, sizeof(*out->candidates), newest_first);
    for (size_t i = 0; i < out->count && !out->chosen; i++)
        if (out->candidates[i].accepted)
            out->chosen = &out->candidates[i];
    choose_per_major(out);
    judge_ctx_free(&j);
    free(installs);
    free(m);
    if (rc)
        cdm_choice_free(out);
    return rc;
}

void cdm_choice_free(struct cdm_choice *c)
{
    for (size_t i = 0; i < c->count; i++)
        free(c->candidates[i].reasons);
    free(c->candidates);
    strv_free(c->environments);
    memset(c, 0, sizeof(*c));
}

int cdm_choose_auto(cdm_ctx *ctx, const struct cdm_choose_request *req, struct cdm_choice *out)
{
    int rc = cdm_choose(ctx, req, out);
    if (rc || out->chosen)
        return rc;
    struct strbuf why = STRBUF_INIT;
    for (size_t i = 0; i < out->count && i < 3; i++) {
        const struct cdm_candidate *c = &out->candidates[i];
        for (size_t r = 0; r < c->reason_count; r++)
            if (c->reasons[r].refuses) {
                sb_addf(&why, "%s%s: %s", i ? "; " : ": ", c->id, c->reasons[r].text);
                break;
            }
    }
    rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                       "no %s is accepted here%s%s; 'cdm resolve%s%s%s' says why each is "
                       "refused",
                       req->offered ? "version" : "install", out->count ? "" : " (there is none)",
                       sb_str(&why), req->project ? " " : "", req->project ? req->project : "",
                       req->offered ? " --available" : "");
    sb_free(&why);
    cdm_choice_free(out);
    return rc;
}
