/* [fetch] base: reading its listing and manifests, and choosing an archive: see redist.h. */
#include "redist.h"
#include "legacy_sums.h"
#include "platform/fs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_FILE_MAX (16u << 20) /* a manifest or a listing; NVIDIA's are a few KiB */

static int hex_value(char c)
{
    return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/* file:///x, file://localhost/x, file:///C:/x -> a path, %XX decoded; NULL if not local */
static char *file_url_path(const char *url)
{
    const char *p = url + strlen("file://");
    if (!strncmp(p, "localhost/", 10))
        p += 9;
    if (*p != '/')
        return NULL;
    if (isalpha((unsigned char)p[1]) && p[2] == ':')
        p++; /* a Windows drive: /C:/x is C:/x */
    struct strbuf sb = STRBUF_INIT;
    for (; *p; p++) {
        if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            sb_addc(&sb, (char)(hex_value(p[1]) * 16 + hex_value(p[2])));
            p += 2;
        } else {
            sb_addc(&sb, *p);
        }
    }
    return sb_detach(&sb);
}

int redist_open(cdm_ctx *ctx, struct redist *r)
{
    memset(r, 0, sizeof(*r));
    r->ctx = ctx;
    net_init(&r->net, ctx);
    char *env = fs_getenv("CDM_FETCH_BASE");
    const char *base = env && *env ? env : ctx->config.fetch_base;
    if (!base)
        base = REDIST_NVIDIA;
    int rc = CDM_OK;
    if (!*base || !strcmp(base, "off")) {
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "downloads are off ([fetch] base = off)");
    } else if (!strncmp(base, "https://", 8) || !strncmp(base, "http://", 7)) {
        r->base = str_ends_with(base, "/") ? xstrdup(base) : xasprintf("%s/", base);
        r->official = !strcmp(r->base, REDIST_NVIDIA);
    } else if (!strncmp(base, "file://", 7)) {
        r->base = xstrdup(base);
        if (!(r->dir = file_url_path(base)))
            rc = cdm_error_set(ctx, CDM_ECONFIG,
                               "[fetch] base '%s' is not a local file:// URL; write "
                               "file:///path/to/folder, or the folder alone",
                               base);
    } else if (strstr(base, "://")) {
        rc = cdm_error_set(ctx, CDM_ECONFIG,
                           "[fetch] base '%s': cdm downloads from https://, http://, file:// "
                           "URLs or a folder",
                           base);
    } else {
        r->base = xstrdup(base);
        r->dir = fs_absolute(base);
    }
    free(env);
    return rc;
}

void redist_close(struct redist *r)
{
    net_close(&r->net);
    free(r->base);
    free(r->dir);
    memset(r, 0, sizeof(*r));
}

char *redist_location(const struct redist *r, const char *rel)
{
    return r->dir ? path_join(r->dir, rel) : xasprintf("%s%s", r->base, rel);
}

char *redist_entry_location(const struct redist *r, const struct manifest_entry *e)
{
    if (e->legacy && r->official)
        return xasprintf("%s%s", REDIST_NVIDIA_LEGACY, e->relative_path);
    return redist_location(r, e->relative_path);
}

char *redist_local_archive(const struct redist *r, const struct manifest_entry *e)
{
    char *at = path_join(r->dir, e->relative_path);
    if (fs_kind(at) == FS_FILE)
        return at;
    free(at);
    at = path_join(r->dir, e->name);
    if (fs_kind(at) == FS_FILE)
        return at;
    free(at);
    return NULL;
}

/* A label a record cannot keep whole; the listings' labels are shorter (redist_labels_in). */
static int long_label(struct redist *r, const char *label)
{
    return cdm_error_set(r->ctx, CDM_EINVAL,
                         "cannot name the manifest 'redistrib_%s.json': its label is longer "
                         "than cdm keeps",
                         label);
}

int redist_offer(struct redist *r, struct cdm_offer *o, const struct manifest_entry *e,
                 const char *label, const char *url)
{
    memset(o, 0, sizeof(*o));
    COPY_STR_ARRAY(o->version, e->version);
    o->cuda = e->cuda;
    COPY_STR_ARRAY(o->platform, e->platform);
    COPY_STR_ARRAY(o->name, e->name);
    o->size = e->size;
    COPY_STR_ARRAY(o->sha256, e->sha256);
    if (!copy_str(o->label, sizeof(o->label), label))
        return long_label(r, label);
    return copy_path(r->ctx, o->url, sizeof(o->url), url);
}

/* ---- small files: manifests and listings ---------------------------------------------- */

static int read_local(cdm_ctx *ctx, const char *path, struct strbuf *out)
{
    if (fs_kind(path) != FS_FILE)
        return cdm_error_set(ctx, CDM_ENOTFOUND, "'%s' is not there", path);
    struct fs_reader *reader;
    uint64_t size;
    int rc = fs_reader_open(ctx, path, &reader, &size);
    if (rc)
        return rc;
    char buf[65536];
    long long n;
    while ((n = fs_reader_read(ctx, reader, buf, sizeof(buf))) > 0 && out->len < SMALL_FILE_MAX)
        sb_addn(out, buf, (size_t)n);
    fs_reader_close(reader);
    return n < 0 ? (int)n : CDM_OK;
}

/* A manifest (rel) or the listing (rel "") below the base, whole, into out. */
static int read_small(struct redist *r, const char *rel, struct strbuf *out)
{
    sb_reset(out);
    char *where = redist_location(r, rel);
    int rc;
    if (r->dir) {
        rc = read_local(r->ctx, where, out);
    } else {
        rc = net_get_text(&r->net, where, NULL, SMALL_FILE_MAX, "manifest or listing", out);
    }
    free(where);
    return rc;
}

/* ---- labels ------------------------------------------------------------------------------ */

static int label_order(const void *a, const void *b)
{
    struct version va, vb;
    version_parse(*(char *const *)a, &va);
    version_parse(*(char *const *)b, &vb);
    for (int i = 0; i < 4; i++) {
        int x = i < va.count ? va.part[i] : -1, y = i < vb.count ? vb.part[i] : -1;
        if (i == 3 && (x < 0 || y < 0)) /* a release label before the builds of its version */
            return (x >= 0) - (y >= 0);
        if (x != y)
            return x > y ? -1 : 1;
    }
    return 0;
}

/* label_order, then the bytes: equal strings end up side by side, for removing repeats. */
static int label_then_bytes(const void *a, const void *b)
{
    int c = label_order(a, b);
    return c ? c : strcmp(*(char *const *)a, *(char *const *)b);
}

char **redist_labels_in(const char *text, size_t len)
{
    static const char prefix[] = "redistrib_";
    size_t count = 0, cap = 16;
    char **labels = xcalloc(cap, sizeof(char *));
    const char *end = text + len;
    for (const char *p = text; p + sizeof(prefix) - 1 < end; p++) {
        if (memcmp(p, prefix, sizeof(prefix) - 1))
            continue;
        const char *l = p + sizeof(prefix) - 1, *q = l;
        while (q < end && (isdigit((unsigned char)*q) || *q == '.'))
            q++;
        if (q > l && q[-1] == '.')
            q--; /* the dot of ".json" */
        struct version v;
        char label[32];
        if (q + 5 > end || memcmp(q, ".json", 5) || q == l || (size_t)(q - l) >= sizeof(label))
            continue;
        memcpy(label, l, (size_t)(q - l));
        label[q - l] = '\0';
        if (!version_parse(label, &v) || v.count < 3)
            continue;
        if (count + 1 == cap) /* a listing names each manifest several times (href, text) */
            labels = xrealloc(labels, (cap *= 2) * sizeof(char *));
        labels[count++] = xstrdup(label);
    }
    /* Sorted, then each repeat dropped: n log n, where a search per label was n squared. */
    if (count)
        qsort(labels, count, sizeof(char *), label_then_bytes);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (kept && !strcmp(labels[kept - 1], labels[i]))
            free(labels[i]);
        else
            labels[kept++] = labels[i];
    }
    labels[kept] = NULL;
    return labels;
}

static int list_labels(struct redist *r, char ***labels)
{
    struct strbuf text = STRBUF_INIT;
    int rc;
    if (r->dir) {
        char **names = NULL;
        rc = fs_list_dir(r->ctx, r->dir, &names);
        for (char **n = names; !rc && *n; n++)
            sb_addf(&text, "%s\n", *n);
        strv_free(names);
    } else {
        rc = read_small(r, "", &text);
    }
    if (rc)
        rc = cdm_error_set(r->ctx, rc,
                           "cannot list the manifests of '%s': %s; give a full version such as "
                           "9.27.0, whose manifest is read directly",
                           r->base, cdm_error_message(r->ctx));
    else
        *labels = redist_labels_in(sb_str(&text), text.len);
    sb_free(&text);
    return rc;
}

int redist_candidates(struct redist *r, const struct version_spec *spec, char ***labels)
{
    *labels = NULL;
    if (!spec->latest && spec->version.count >= 3) {
        char **v = xcalloc(3, sizeof(char *));
        const int *part = spec->version.part;
        v[0] = xasprintf("%d.%d.%d", part[0], part[1], part[2]);
        if (spec->version.count == 4) /* the per-build manifests of 8.5 to 8.9 */
            v[1] = xasprintf("%d.%d.%d.%d", part[0], part[1], part[2], part[3]);
        *labels = v;
        return CDM_OK;
    }
    char **all = NULL;
    int rc = list_labels(r, &all);
    if (rc)
        return rc;
    size_t n = 0;
    for (char **l = all; *l; l++) {
        struct version v;
        version_parse(*l, &v);
        if (spec->latest || version_has_prefix(&v, &spec->version))
            all[n++] = *l;
        else
            free(*l);
    }
    all[n] = NULL;
    *labels = all;
    return CDM_OK;
}

int redist_manifest(struct redist *r, const char *label, struct manifest *m, struct strbuf *raw,
                    char **where)
{
    struct strbuf own = STRBUF_INIT;
    struct strbuf *text = raw ? raw : &own;
    char *rel = xasprintf("redistrib_%s.json", label);
    char *url = redist_location(r, rel);
    int rc = read_small(r, rel, text);
    if (!rc)
        rc = manifest_parse(r->ctx, text->buf ? text->buf : "", text->len, "cudnn", url, m);
    if (!rc && !m->label[0] && !copy_str(m->label, sizeof(m->label), label))
        rc = long_label(r, label);
    if (!rc && where)
        *where = url;
    else
        free(url);
    free(rel);
    sb_free(&own);
    return rc;
}

bool redist_entry_matches(const struct manifest_entry *e, const struct version_spec *spec, int cuda)
{
    struct version v;
    return !e->problem[0] && version_parse(e->version, &v) &&
           version_spec_matches(spec, &v, e->cuda) && (!cuda || cuda == e->cuda);
}

/* ---- choosing the archive for a spec ------------------------------------------------- */

/* Where the archives from before the manifests were looked up, in messages. */
#define LEGACY_WHERE "cdm's table of NVIDIA's archives from before its manifests"

/* What the manifests read so far said, for the message when nothing matched. */
struct search {
    struct strbuf manifests; /* the locations read */
    struct strbuf variants;  /* the CUDA variants the platform has in the newest one */
    char problem[400];       /* an entry that matched but cannot be used */
};

static void note_variants(struct search *s, const struct manifest *m, const char *platform)
{
    if (s->variants.len)
        return;
    for (size_t i = 0; i < m->count; i++) {
        const struct manifest_entry *e = &m->entries[i];
        char name[16];
        snprintf(name, sizeof(name), "cuda%d", e->cuda);
        if (!strcmp(e->platform, platform) && !e->problem[0] && !strstr(sb_str(&s->variants), name))
            sb_addf(&s->variants, "%s%s", s->variants.len ? ", " : "", name);
    }
}

/* In one manifest: the entry for platform and spec. CDM_ENOTFOUND when it has none. */
static int pick_in(struct redist *r, const struct manifest *m, const char *where,
                   const struct version_spec *spec, const char *platform, struct search *s,
                   const struct manifest_entry **out)
{
    const struct manifest_entry *best = NULL;
    struct strbuf cudas = STRBUF_INIT;
    int distinct = 0;
    for (size_t i = 0; i < m->count; i++) {
        const struct manifest_entry *e = &m->entries[i];
        if (strcmp(e->platform, platform))
            continue;
        if (e->problem[0]) {
            struct archive_name an;
            if (!s->problem[0] && archive_name_parse(e->name, &an) &&
                version_spec_matches(spec, &an.version, an.cuda_major))
                snprintf(s->problem, sizeof(s->problem), "its entry for %s in '%s' is unusable: %s",
                         platform, where, e->problem);
            continue;
        }
        if (!redist_entry_matches(e, spec, 0))
            continue;
        if (!best || best->cuda != e->cuda) {
            char name[16];
            snprintf(name, sizeof(name), "cuda%d", e->cuda);
            if (!strstr(sb_str(&cudas), name)) {
                sb_addf(&cudas, "%s%s", cudas.len ? " and " : "", name);
                distinct++;
            }
        }
        /* for one CUDA major, the entry under its variant key beats a flat one */
        if (!best || e->cuda > best->cuda || (e->cuda == best->cuda && !best->variant[0]))
            best = e;
    }
    int rc = CDM_OK;
    if (!best)
        rc = CDM_ENOTFOUND;
    else if (distinct > 1)
        rc = cdm_error_set(r->ctx, CDM_EAMBIGUOUS,
                           "cuDNN %s for %s is published for %s ('%s'); choose one with --cuda N",
                           best->version, platform, sb_str(&cudas), where);
    else
        *out = best;
    sb_free(&cudas);
    return rc;
}

static int not_found(struct redist *r, const char *spec_text, int cuda, const char *platform,
                     const struct search *s)
{
    char variant[16] = "";
    if (cuda)
        snprintf(variant, sizeof(variant), " cuda%d", cuda);
    if (s->problem[0])
        return cdm_error_set(r->ctx, CDM_ENETWORK,
                             "cannot download cuDNN %s for %s%s: %s; try another [fetch] base",
                             spec_text, platform, variant, s->problem);
    if (!s->manifests.len)
        return cdm_error_set(r->ctx, CDM_ENOTFOUND,
                             "NVIDIA publishes no cuDNN %s: '%s' lists no such manifest; see "
                             "'cdm available'",
                             spec_text, r->base);
    struct strbuf has = STRBUF_INIT;
    if (s->variants.len)
        sb_addf(&has, "; for %s it has %s", platform, sb_str(&s->variants));
    if (strstr(sb_str(&s->manifests), LEGACY_WHERE))
        sb_addf(&has, "; if your site has checked a copy of the archive, give its hash in "
                      "[fetch] legacy_sums");
    int rc = cdm_error_set(r->ctx, CDM_ENOTFOUND,
                           "NVIDIA publishes no cuDNN %s for %s%s (%s)%s; see 'cdm available %s "
                           "--platform %s'",
                           spec_text, platform, variant, sb_str(&s->manifests), sb_str(&has),
                           spec_text, platform);
    sb_free(&has);
    return rc;
}

/* A manifest of the table's archives of one version, as though NVIDIA had published one. */
static void legacy_manifest(const struct legacy_list *list, const char *version, struct manifest *m)
{
    memset(m, 0, sizeof(*m));
    m->entries = xcalloc(list->count, sizeof(*m->entries));
    snprintf(m->label, sizeof(m->label), "%s", version); /* version_format's, under 32 */
    snprintf(m->version, sizeof(m->version), "%s", version);
    for (size_t i = 0; i < list->count; i++) {
        const struct official_legacy *a = &list->items[i];
        struct archive_name an;
        char v[32];
        if (!archive_name_parse(a->name, &an) || !version_format(&an.version, v, sizeof(v)) ||
            strcmp(v, version))
            continue;
        struct manifest_entry *e = &m->entries[m->count];
        /* a name parsed as an archive's fits its field; a hash is 64 characters */
        if (!copy_str(e->name, sizeof(e->name), a->name) ||
            !copy_str(e->sha256, sizeof(e->sha256), a->sha256))
            continue;
        COPY_STR_ARRAY(e->platform, an.platform);
        e->cuda = an.cuda_major;
        COPY_STR_ARRAY(e->version, v);
        snprintf(e->relative_path, sizeof(e->relative_path), "%s/%s", a->folder, a->name);
        e->legacy = true;
        m->count++;
    }
}

/* In cdm's table of the archives from before the manifests, and the site's: the newest
 * version matching spec that has an archive for platform. */
static int find_legacy(struct redist *r, const struct version_spec *spec, const char *platform,
                       struct search *s, struct redist_pick *out)
{
    static const char where[] = LEGACY_WHERE;
    struct legacy_list list;
    int rc = legacy_list_load(r->ctx, &list);
    char last[32] = "";
    for (size_t i = 0; !rc && i < list.count; i++) {
        struct archive_name an;
        char v[32];
        if (!archive_name_parse(list.items[i].name, &an) ||
            !version_spec_matches(spec, &an.version, an.cuda_major) ||
            !version_format(&an.version, v, sizeof(v)) || !strcmp(v, last))
            continue;
        COPY_STR_ARRAY(last, v);
        if (!strstr(sb_str(&s->manifests), where))
            sb_addf(&s->manifests, "%s%s", s->manifests.len ? ", " : "", where);
        legacy_manifest(&list, v, &out->manifest);
        note_variants(s, &out->manifest, platform);
        rc = pick_in(r, &out->manifest, where, spec, platform, s, &out->entry);
        if (rc == CDM_OK) {
            COPY_STR_ARRAY(out->label, v);
            out->manifest_url = xstrdup(where);
            break;
        }
        manifest_free(&out->manifest);
        if (rc == CDM_ENOTFOUND)
            rc = CDM_OK;
    }
    legacy_list_free(&list);
    return rc;
}

int redist_find(struct redist *r, const char *spec_text, int cuda, const char *platform,
                struct redist_pick *out)
{
    memset(out, 0, sizeof(*out));
    struct version_spec spec;
    if (!version_spec_parse(spec_text, &spec))
        return cdm_error_set(r->ctx, CDM_EINVAL,
                             "'%s' is not a version; give one such as 9.27, 8.9.7.29, "
                             "8.9.7.29-cuda12 or latest",
                             spec_text);
    if (cuda && spec.cuda && cuda != spec.cuda)
        return cdm_error_set(r->ctx, CDM_EINVAL, "'%s' names cuda%d but --cuda says %d", spec_text,
                             spec.cuda, cuda);
    if (cuda)
        spec.cuda = cuda;
    char **labels = NULL;
    int rc = redist_candidates(r, &spec, &labels);
    struct search s = {STRBUF_INIT, STRBUF_INIT, ""};
    for (char **l = labels; !rc && *l; l++) {
        char *where = NULL;
        rc = redist_manifest(r, *l, &out->manifest, &out->raw, &where);
        if (rc == CDM_ENOTFOUND) {
            rc = CDM_OK; /* named directly but not there, or listed and gone */
            continue;
        }
        if (rc)
            break;
        sb_addf(&s.manifests, "%s'%s'", s.manifests.len ? ", " : "", where);
        note_variants(&s, &out->manifest, platform);
        rc = pick_in(r, &out->manifest, where, &spec, platform, &s, &out->entry);
        if (rc == CDM_OK) {
            if (!copy_str(out->label, sizeof(out->label), *l))
                rc = long_label(r, *l);
            out->manifest_url = where;
            break;
        }
        free(where);
        manifest_free(&out->manifest);
        if (rc == CDM_ENOTFOUND)
            rc = CDM_OK; /* an older manifest may have it (--cuda 11 on 9.x) */
    }
    if (!rc && !out->entry && !spec.latest)
        rc = find_legacy(r, &spec, platform, &s, out);
    if (!rc && !out->entry)
        rc = not_found(r, spec_text, spec.cuda, platform, &s);
    sb_free(&s.manifests);
    sb_free(&s.variants);
    strv_free(labels);
    if (rc)
        redist_pick_free(out);
    return rc;
}

void redist_pick_free(struct redist_pick *p)
{
    manifest_free(&p->manifest);
    free(p->manifest_url);
    sb_free(&p->raw);
    memset(p, 0, sizeof(*p));
}
