/* What doctor.c shares with the platform files that add checks of their own. */
#ifndef CDM_DOCTOR_H
#define CDM_DOCTOR_H

#include "internal.h"

struct doctor;

/* Append a check result; detail and fix are printf formats (fix may be NULL). */
void doctor_add(struct doctor *d, const char *name, enum cdm_check_status status, const char *fix,
                const char *detail_fmt, ...) CDM_PRINTF(5, 6);
cdm_ctx *doctor_ctx(struct doctor *d);
const char *doctor_store_root(struct doctor *d);

#endif
