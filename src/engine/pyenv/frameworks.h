/*
 * What the frameworks of a Python environment require of the cuDNN they load, read from the
 * environment's dist-info (no framework is imported): a table of rules, one row per
 * framework and version range, each with its source and how a user can go past it
 * (frameworks.c), and a list of cuDNN versions a framework is known to refuse. cdm attach,
 * link and rollback (of a project with environments attached) and the doctor use it.
 */
#ifndef CDM_FRAMEWORKS_H
#define CDM_FRAMEWORKS_H

#include "internal.h"

/* One framework of the environment against one install. */
struct fw_verdict {
    char framework[200]; /* "torch 2.11.0" */
    char rule[300];    /* what it asks: "same major as its build's cuDNN 9.19, minor 19 or newer" */
    char problem[512]; /* why the install does not suit it; "" when it does */
    bool decided;      /* the rule could be applied (a build's rule needs the framework's
                        * Requires-Dist on the nvidia-cudnn wheel) */
    bool warn_only;    /* the rule serves one feature: a warning, never a refusal */
    int wants_major;   /* the cuDNN major the rule asks for, 0 when it names none */
    const char *override; /* how a user goes past it */
    const char *source;   /* where the rule comes from */
};

/* Each framework of the table found in the site-packages folders sites (NULL-terminated),
 * judged against the install in (its version and CUDA major). *out malloc'd; the count is
 * returned (0: no framework of the table is there). */
size_t fw_check(char *const *sites, const struct cdm_install_info *in, struct fw_verdict **out);

/* The first verdict with a problem that refuses (not warn_only), or NULL. */
const struct fw_verdict *fw_first_refusal(const struct fw_verdict *v, size_t n);

#endif
