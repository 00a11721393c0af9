/* cdm available: every archive the manifests of [fetch] base list, for a platform. */
#include "platform/fs.h"
#include "pypi.h"
#include "redist.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

struct offers {
    struct cdm_offer *v;
    size_t count, cap;
};

static bool listed(const struct offers *o, const char *name)
{
    for (size_t i = 0; i < o->count; i++)
        if (!strcmp(o->v[i].name, name))
            return true;
    return false;
}

static int add_offer(struct redist *r, struct offers *o, const struct manifest_entry *e,
                     const char *label, char *where)
{
    if (o->count == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 16;
        o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
    }
    int rc = redist_offer(r, &o->v[o->count++], e, label, where);
    free(where);
    return rc;
}

static int offer_order(const void *a, const void *b)
{
    const struct cdm_offer *x = a, *y = b;
    struct version vx, vy;
    version_parse(x->version, &vx);
    version_parse(y->version, &vy);
    int c = version_compare(&vx, &vy);
    if (!c)
        c = x->cuda - y->cuda;
    if (!c)
        c = strcmp(x->platform, y->platform);
    return c ? c : strcmp(x->name, y->name);
}

/* The entries of one manifest that match; a local base only offers what it holds. */
static int take_manifest(struct redist *r, const struct manifest *m, const char *label,
                         const struct cdm_available_request *req, const char *platform,
                         const struct version_spec *spec, struct offers *o)
{
    int rc = CDM_OK;
    for (size_t i = 0; i < m->count && !rc; i++) {
        const struct manifest_entry *e = &m->entries[i];
        if ((strcmp(platform, "all") && strcmp(e->platform, platform)) ||
            !redist_entry_matches(e, spec, req->cuda) || listed(o, e->name))
            continue;
        char *where = r->dir ? redist_local_archive(r, e) : redist_entry_location(r, e);
        if (where)
            rc = add_offer(r, o, e, label, where);
    }
    return rc;
}

/* NVIDIA's wheels the package index offers (pypi.c reads its pages). */
static int offers_of_index(cdm_ctx *ctx, const struct cdm_available_request *req,
                           const char *platform, const struct version_spec *spec, struct offers *o)
{
    char *index = pypi_index_url(ctx);
    if (!index)
        return cdm_error_code(ctx);
    struct net net;
    net_init(&net, ctx);
    struct index_file *files = NULL;
    size_t n = 0;
    int rc = pypi_list(ctx, &net, index, req->cuda ? req->cuda : spec->cuda, &files, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        struct archive_name an;
        if (files[i].yanked || !wheel_name_parse(files[i].name, &an) ||
            (strcmp(platform, "all") && strcmp(an.platform, platform)) ||
            !version_spec_matches(spec, &an.version, an.cuda_major) || listed(o, files[i].name))
            continue;
        if (o->count == o->cap)
            o->v = xrealloc(o->v, (o->cap = o->cap ? o->cap * 2 : 16) * sizeof(*o->v));
        struct cdm_offer *offer = &o->v[o->count++];
        memset(offer, 0, sizeof(*offer));
        version_format(&an.version, offer->version, sizeof(offer->version));
        offer->cuda = an.cuda_major;
        COPY_STR_ARRAY(offer->platform, an.platform);
        COPY_STR_ARRAY(offer->name, files[i].name);
        offer->size = files[i].size;
        COPY_STR_ARRAY(offer->sha256, files[i].sha256);
        snprintf(offer->label, sizeof(offer->label), "nvidia-cudnn-cu%d", an.cuda_major);
        rc = copy_path(ctx, offer->url, sizeof(offer->url), files[i].url);
    }
    index_files_free(files, n);
    net_close(&net);
    free(index);
    return rc;
}

int cdm_available(cdm_ctx *ctx, const struct cdm_available_request *req, struct cdm_offer **out,
                  size_t *count)
{
    *out = NULL;
    *count = 0;
    const char *platform = req->platform ? req->platform : fs_host_platform();
    struct version_spec spec = {.latest = true};
    if (req->spec && !version_spec_parse(req->spec, &spec))
        return cdm_error_set(ctx, CDM_EINVAL,
                             "'%s' is not a version; give one such as 9.27, 8.9.7.29 or latest",
                             req->spec);
    if (req->cuda && spec.cuda && req->cuda != spec.cuda)
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' names cuda%d but --cuda says %d", req->spec,
                             spec.cuda, req->cuda);
    struct redist r;
    char **labels = NULL;
    struct offers o = {NULL, 0, 0};
    if (req->from && !strcmp(req->from, "pypi")) {
        int rc = offers_of_index(ctx, req, platform, &spec, &o);
        if (!rc && o.count)
            qsort(o.v, o.count, sizeof(*o.v), offer_order);
        *out = o.v;
        *count = o.count;
        return rc;
    }
    int rc = redist_open(ctx, &r);
    if (!rc)
        rc = redist_candidates(&r, &spec, &labels);
    for (char **l = labels; !rc && *l; l++) {
        struct manifest m;
        rc = redist_manifest(&r, *l, &m, NULL, NULL);
        if (rc == CDM_ENOTFOUND) { /* a version named directly that is not published */
            rc = CDM_OK;
            continue;
        }
        if (!rc)
            rc = take_manifest(&r, &m, *l, req, platform, &spec, &o);
        manifest_free(&m);
    }
    strv_free(labels);
    redist_close(&r);
    if (rc) {
        free(o.v);
        return rc;
    }
    if (o.count) /* qsort's array may not be NULL, even empty */
        qsort(o.v, o.count, sizeof(*o.v), offer_order);
    *out = o.v;
    *count = o.count;
    return CDM_OK;
}
