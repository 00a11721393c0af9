/* The doctor's report, and what its layers ask in common (doctor.h). */
#include "db.h"
#include "upstream.h"
#include "doctor.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *cdm_check_status_name(enum cdm_check_status status)
{
    static const char *const names[] = {"ok", "warn", "fail", "skip"};
    return (unsigned)status < CDM_ARRAY_LEN(names) ? names[status] : "?";
}

void doctor_add(struct doctor *d, const char *name, enum cdm_check_status status, const char *fix,
                const char *detail_fmt, ...)
{
    struct cdm_doctor_report *r = d->report;
    ALLOC_GROW(r->checks, r->count);
    struct cdm_check *c = &r->checks[r->count++];
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, detail_fmt);
    sb_vaddf(&sb, detail_fmt, ap);
    va_end(ap);
    c->name = xstrdup(name);
    c->status = status;
    c->detail = sb_detach(&sb);
    c->fix = fix && (status == CDM_CHECK_FAIL || status == CDM_CHECK_WARN) ? xstrdup(fix) : NULL;
}

void cdm_doctor_report_free(struct cdm_doctor_report *r)
{
    for (size_t i = 0; i < r->count; i++) {
        free(r->checks[i].name);
        free(r->checks[i].detail);
        free(r->checks[i].fix);
    }
    free(r->checks);
    for (size_t i = 0; i < r->loaded_count; i++) {
        struct cdm_loaded *l = &r->loaded[i];
        free(l->path);
        free(l->real_path);
        free(l->kind);
        free(l->install);
        free(l->folder);
        free(l->version);
        free(l->why);
    }
    free(r->loaded);
    memset(r, 0, sizeof(*r));
}

bool doctor_installed(struct doctor *d, const char *id, struct cdm_install_info *out)
{
    struct cdm_install_info tmp;
    struct cdm_install_info *in = out ? out : &tmp;
    if (!*id) /* the index is open (in memory when there is no store): upstreams may have it */
        return false;
    return db_install_find(d->ctx, id, in) == CDM_OK && in->state == CDM_INSTALL_OK;
}

bool doctor_need_install(struct doctor *d, const char *name)
{
    if (!d->have_install) {
        doctor_add(d, name, CDM_CHECK_SKIP, NULL, "no cuDNN install to examine");
        return false;
    }
    if (!d->native) {
        doctor_add(d, name, CDM_CHECK_SKIP, NULL,
                   "%s is for %s and this machine is %s; run cdm doctor there", d->install.id,
                   d->install.platform, cdm_host_platform());
        return false;
    }
    return true;
}

const struct driver_info *doctor_driver(struct doctor *d)
{
    if (!d->driver_probed) {
        loader_driver(&d->driver);
        d->driver_probed = true;
    }
    return &d->driver;
}
