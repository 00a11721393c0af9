/*
 * Judging candidates for a project: what every candidate is measured against (the machine,
 * the project's toolkit and pin, its Python environments), and one candidate's reasons
 * (choose_rules.c); cdm_choose gathers the candidates and chooses (choose.c).
 */
#ifndef CDM_CHOOSE_INTERNAL_H
#define CDM_CHOOSE_INTERNAL_H

#include "machine.h"
#include "version.h"

struct judge_env {
    char *prefix; /* the environment's folder */
    char **sites; /* its site-packages folders, NULL-terminated */
};

struct judge_ctx {
    const struct machine *m;
    bool windows; /* this machine is Windows (the driver table's column) */
    bool has_pin;
    char pin_text[64];
    struct version_spec pin;
    bool has_toolkit;
    int tk_major, tk_minor;
    char toolkit[64];
    struct judge_env *envs;
    size_t env_count;
};

/* Every reason of c (whose id, version and cuda are set) against j; c->accepted set. */
void judge_candidate(const struct judge_ctx *j, const struct cdm_install_info *in,
                     struct cdm_candidate *c);

/* The reasons of the machine alone (GPU architectures, driver) added to c. */
void judge_machine(const struct machine *m, bool windows, struct cdm_candidate *c);

void judge_ctx_free(struct judge_ctx *j);

#endif
