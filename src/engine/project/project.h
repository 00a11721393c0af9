/*
 * Projects inside the engine (cdm.h has cdm_project_open/find): the key a project is
 * recorded under, its link's name, its pin file and the leftovers a killed cdm leaves in
 * its folder. The project module owns the pin file: nothing else writes or removes it.
 */
#ifndef CDM_PROJECT_H
#define CDM_PROJECT_H

#include "internal.h"

/* The key a project is recorded under: its canonical path, or for a folder that is gone,
 * the canonical path of its parent joined with its name. malloc'd. */
char *project_key(const char *path);

/* The nearest folder from start (NULL: the current one) upwards that holds a link of the
 * configured name or a pin file, canonical and malloc'd; NULL when none does. Only stats. */
char *project_nearest(cdm_ctx *ctx, const char *start);

/* A name a link may have: one plain file name, not the pin file's. */
bool project_link_name_valid(const char *name);

/* Write the pin file (install id and a newline) whole: a temporary file, then rename.
 * Nothing is written when it says id already. */
int project_pin_write(cdm_ctx *ctx, const struct cdm_project *p, const char *id);
int project_pin_remove(cdm_ctx *ctx, const struct cdm_project *p);

/* Temporary links and pin files a killed cdm left in folder dir: ours by name and kind;
 * nothing else is touched. */
void project_clean_leftovers(cdm_ctx *ctx, const char *dir, const char *link_name);
/* The temporary files a killed writer left in the project folder dir: "cudnn.lock.cdm-<pid>
 * .tmp" (cdm lock, which takes no lock) and the pin's, each whose process is gone; how many
 * were removed. For cdm gc. */
unsigned project_clean_stale_temps(cdm_ctx *ctx, const char *dir);

#endif
