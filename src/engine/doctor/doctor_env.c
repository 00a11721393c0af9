/* The environment a project's programs run in, for the same-install rule and for
 * cdm doctor -- CMD: exactly the changes `cdm activate` would make here. */
#include "doctor.h"
#include "platform/fs.h"
#include "env_plan.h"

#include <stdlib.h>
#include <string.h>

static void add_var(struct doctor_env *e, const char *name, char *value)
{
    ALLOC_GROW(e->vars, e->count);
    e->vars[e->count].name = name;
    e->vars[e->count].value = value;
    e->count++;
}

static void compute(struct doctor *d, struct doctor_env *e)
{
    const struct shell_platform *pf = shell_host_platform();
    e->path_var = pf->path_var;
    struct cdm_activation act;
    struct env_snapshot snap = {NULL, 0};
    struct cdm_env_plan plan = {.n = 0};
    /* activation is the project's: examining another install (--cudnn), it does not apply */
    bool other = d->have_project && d->have_install && strcmp(d->project.linked_id, d->install.id);
    bool found = d->have_project && !other &&
                 cdm_activation_find(d->ctx, d->project.path, false, &act) == CDM_OK;
    if (!found) {
        if (other)
            snprintf(e->activation, sizeof(e->activation),
                     "the project uses %s, not the %s examined", d->project.linked_id,
                     d->install.id);
        else
            copy_text(e->activation, sizeof(e->activation),
                      d->have_project ? cdm_error_message(d->ctx) : "no project to activate");
    } else {
        struct activation_target t;
        activation_target_of(pf, &act, &t);
        /* the redirect, when there is one, is the trace's audit library's (doctor_run.c) */
        e->activated = activation_plan(pf, env_snapshot_get, &snap, &t, &plan);
        e->redirect = act.redirect != CDM_REDIRECT_NO;
        char *entry = activation_entry(pf, &t);
        if (e->activated)
            copy_text(e->activation, sizeof(e->activation), entry);
        else
            snprintf(e->activation, sizeof(e->activation), "'%s' holds '%c', which %s cannot carry",
                     entry, pf->list_sep, pf->path_var);
        free(entry);
    }
    for (size_t i = 0; i < plan.n; i++) {
        const struct cdm_env_change *c = &plan.v[i];
        char *value = env_change_value(pf, c);
        add_var(e, c->name, value);
        if (!strcmp(c->name, pf->path_var) && value)
            e->path_list = xstrdup(value);
    }
    /* the names live in the plan's static table; only the values were copied */
    cdm_env_plan_free(&plan);
    env_snapshot_free(&snap);
    if (!e->path_list)
        e->path_list = fs_getenv(pf->path_var);
}

const struct doctor_env *doctor_env(struct doctor *d)
{
    if (!d->env) {
        d->env = xcalloc(1, sizeof(*d->env));
        compute(d, d->env);
    }
    return d->env;
}

void doctor_env_free(struct doctor_env *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->count; i++)
        free((char *)e->vars[i].value);
    free(e->vars);
    free(e->path_list);
    free(e);
}
