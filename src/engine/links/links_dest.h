/*
 * Where a link change points (links.c): an install, a view of it over a CUDA toolkit, or a
 * pair view that holds a second cuDNN major beside it (cdm link --also); which installs a
 * change leaves the project with, one per cuDNN major; and the toolkit a change uses.
 */
#ifndef CDM_LINKS_DEST_H
#define CDM_LINKS_DEST_H

#include "internal.h"
#include "toolkit.h"

struct dest {
    const struct cdm_install_info *in; /* NULL: the link goes */
    char *path;                        /* in->path, or the view's folder */
    struct cdm_toolkit tk;             /* tk.version "" without a toolkit */
    char *view;                        /* the view's name; NULL without one */
};
void dest_free(struct dest *d);
/* The folder of d's DLLs, relative to it ('/' separated): the install's bin_dir, or the
 * view's; "" when the link goes. */
void dest_bin_dir(const struct dest *d, char *out, size_t size);

/* An install that exists in the store, for a link; why starts the error. */
int link_installed(cdm_ctx *ctx, const char *id, const char *why, struct cdm_install_info *in);

/* Where a link to in leads: the install; with a toolkit its view; with also (id not "") the
 * pair view of in and also. view: the name to use (a generation's), NULL for a new one.
 * Built when missing. */
int make_dest(cdm_ctx *ctx, const struct cdm_install_info *in, const struct cdm_install_info *also,
              const struct cdm_toolkit *tk, const char *view, struct dest *d);

/* Where a dry run's link would lead: the view's name and place, nothing built. */
void dry_dest(cdm_ctx *ctx, const struct cdm_install_info *in, const struct cdm_install_info *also,
              const struct cdm_toolkit *tk, struct dest *d);

/* One install per cuDNN major. in (the request's install) takes its major's place: the
 * second install of the current generation's pair view stays beside it unless only, or
 * is the one replaced when in is of its major; with want_also in goes beside the current
 * install. On return in is the link's install (the pin's) and also the second (id "" for
 * none). */
int pair_settle(cdm_ctx *ctx, const char *project, const struct cdm_generation *cur, bool want_also,
                bool only, struct cdm_install_info *in, struct cdm_install_info *also);

/* The second install of generation number's pair view (id "" when it has none), for a
 * rollback to it. */
int generation_also(cdm_ctx *ctx, const char *project, long long number,
                    const struct cdm_generation *g, struct cdm_install_info *also);

/* The toolkit a link is to use: given (--toolkit: a version or a folder; "none": none),
 * else the one the project's current generation recorded. tk->version "" for none. */
int choose_toolkit(cdm_ctx *ctx, const char *project, const char *given,
                   const struct cdm_generation *cur, struct cdm_toolkit *tk);
/* The pair must be in the compatibility tables (compat.h), unless force: then a warning. */
int check_pair(cdm_ctx *ctx, const char *project, const struct cdm_install_info *in,
               const struct cdm_toolkit *tk, bool force);

#endif
