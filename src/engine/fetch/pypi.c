/* NVIDIA's cuDNN wheels from a Python package index (pypi.h). */
#include "pypi.h"
#include "platform/fs.h"
#include "version.h"

#include <cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A project's page: PyPI's JSON for nvidia-cudnn-cu12 is a few hundred KiB. */
#define PAGE_MAX (32u << 20)
/* PEP 691: JSON first, HTML where the index has only that. */
#define PAGE_ACCEPT                                                                                \
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "             \
    "text/html;q=0.1"

char *pypi_index_url(cdm_ctx *ctx)
{
    char *env = fs_getenv("PIP_INDEX_URL");
    const char *index = ctx->config.index_url ? ctx->config.index_url
                        : env && *env         ? env
                                              : PYPI_SIMPLE;
    char *out = NULL;
    if (!*index || !strcmp(index, "off"))
        cdm_error_set(ctx, CDM_ENOTFOUND,
                      "downloads from a package index are off ([fetch] index_url = off)");
    else
        out = xasprintf("%s%s", index, str_ends_with(index, "/") ? "" : "/");
    free(env);
    return out;
}

void index_files_free(struct index_file *files, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(files[i].url);
    free(files);
}

/* href against the page it is on (RFC 3986's cases an index uses: absolute, //host/...,
 * /path, relative with ../). NULL for a scheme other than http(s). malloc'd. */
static char *resolve_url(const char *page, const char *href)
{
    if (str_starts_with(href, "https://") || str_starts_with(href, "http://"))
        return xstrdup(href);
    if (strchr(href, ':') && strcspn(href, ":") < strcspn(href, "/?#"))
        return NULL; /* another scheme: file:, javascript:, ... */
    const char *host = strstr(page, "://");
    if (!host)
        return NULL;
    host += 3;
    if (str_starts_with(href, "//"))
        return xasprintf("%.*s%s", (int)(host - page - 2), page, href);
    const char *path = host + strcspn(host, "/");
    if (href[0] == '/')
        return xasprintf("%.*s%s", (int)(path - page), page, href);
    /* relative: the page's folder, then each ../ takes one folder off (never the host) */
    const char *end = strrchr(path, '/');
    size_t keep = end ? (size_t)(end - page) + 1 : strlen(page);
    while (str_starts_with(href, "../") || str_starts_with(href, "./")) {
        if (href[1] == '/') {
            href += 2;
            continue;
        }
        href += 3;
        size_t folder = keep - 1;
        while (folder > (size_t)(path - page) && page[folder - 1] != '/')
            folder--;
        if (folder > (size_t)(path - page))
            keep = folder;
    }
    return xasprintf("%.*s%s", (int)keep, page, href);
}

/* The file name a URL ends in (no query, no fragment) into name; false when it has
 * characters no wheel's name has. */
static bool url_file_name(const char *url, char *name, size_t size)
{
    size_t end = strcspn(url, "#?");
    const char *start = url + end;
    while (start > url && start[-1] != '/')
        start--;
    size_t n = (size_t)(url + end - start);
    if (!n || n >= size)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)start[i]) && !strchr("._-+", start[i]))
            return false;
    memcpy(name, start, n);
    name[n] = '\0';
    return true;
}

/* One file of the page, kept when its URL is usable. */
static void add_file(struct index_file **files, size_t *count, const char *page, const char *href,
                     const char *sha256, uint64_t size, bool yanked)
{
    struct index_file f = {.size = size, .yanked = yanked};
    char *url = resolve_url(page, href);
    if (!url || !url_file_name(url, f.name, sizeof(f.name))) {
        free(url);
        return;
    }
    /* the fragment's hash is no part of the URL to fetch */
    url[strcspn(url, "#")] = '\0';
    f.url = url;
    if (!sha256_hex_parse(sha256, f.sha256))
        f.sha256[0] = '\0';
    *files = xrealloc(*files, (*count + 1) * sizeof(**files));
    (*files)[(*count)++] = f;
}

/* PEP 691: {"files": [{"filename", "url", "hashes": {"sha256"}, "size", "yanked"}]} */
static int parse_json(cdm_ctx *ctx, const char *page, const char *text, size_t len,
                      struct index_file **files, size_t *count)
{
    cJSON *doc = cJSON_ParseWithLength(text, len);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "files");
    if (!cJSON_IsArray(list)) {
        cJSON_Delete(doc);
        return cdm_error_set(ctx, CDM_ENETWORK,
                             "'%s' is no package index page (JSON without \"files\"); check "
                             "[fetch] index_url",
                             page);
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, list)
    {
        const cJSON *url = cJSON_GetObjectItemCaseSensitive(f, "url");
        const cJSON *hashes = cJSON_GetObjectItemCaseSensitive(f, "hashes");
        const cJSON *sha = cJSON_GetObjectItemCaseSensitive(hashes, "sha256");
        const cJSON *size = cJSON_GetObjectItemCaseSensitive(f, "size");
        const cJSON *yanked = cJSON_GetObjectItemCaseSensitive(f, "yanked");
        if (!cJSON_IsString(url))
            continue;
        uint64_t bytes = cJSON_IsNumber(size) && size->valuedouble > 0 && size->valuedouble < 1e15
                             ? (uint64_t)size->valuedouble
                             : 0;
        /* yanked is false, true, or the reason as a string */
        bool is_yanked = cJSON_IsTrue(yanked) || cJSON_IsString(yanked);
        add_file(files, count, page, url->valuestring,
                 cJSON_IsString(sha) ? sha->valuestring : NULL, bytes, is_yanked);
    }
    cJSON_Delete(doc);
    return CDM_OK;
}

/* An attribute's value in the tag [tag, end): href="..." or href='...', &amp; decoded;
 * NULL when absent. malloc'd. */
static char *attribute(const char *tag, const char *end, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = tag; p + n < end; p++) {
        if (!isspace((unsigned char)p[-1]) || !str_starts_with_icase(p, name) ||
            (p[n] != '=' && !isspace((unsigned char)p[n]) && p[n] != '>' && p[n] != '/'))
            continue;
        const char *v = p + n;
        while (v < end && isspace((unsigned char)*v))
            v++;
        if (*v != '=')
            return xstrdup(""); /* present, without a value (data-yanked) */
        for (v++; v < end && isspace((unsigned char)*v); v++)
            ;
        char quote = (*v == '"' || *v == '\'') ? *v++ : '\0';
        const char *stop = v;
        while (stop < end && (quote ? *stop != quote : !isspace((unsigned char)*stop)))
            stop++;
        struct strbuf out = STRBUF_INIT;
        for (const char *c = v; c < stop; c++) {
            if (str_starts_with(c, "&amp;") && c + 5 <= stop)
                sb_addc(&out, '&'), c += 4;
            else
                sb_addc(&out, *c);
        }
        return sb_detach(&out);
    }
    return NULL;
}

/* PEP 503: one <a href="URL#sha256=HEX" [data-yanked]>NAME</a> a file. */
static void parse_html(const char *page, const char *text, size_t len, struct index_file **files,
                       size_t *count)
{
    const char *end = text + len;
    for (const char *p = text; p + 2 < end; p++) {
        if (p[0] != '<' || tolower((unsigned char)p[1]) != 'a' || !isspace((unsigned char)p[2]))
            continue;
        const char *close = memchr(p, '>', (size_t)(end - p));
        if (!close)
            break;
        char *href = attribute(p + 2, close, "href");
        char *yanked = attribute(p + 2, close, "data-yanked");
        if (href) {
            const char *hash = strstr(href, "#sha256=");
            add_file(files, count, page, href, hash ? hash + 8 : NULL, 0, yanked != NULL);
        }
        free(href);
        free(yanked);
        p = close;
    }
}

int pypi_parse_page(cdm_ctx *ctx, const char *page_url, const char *text, size_t len,
                    struct index_file **files, size_t *count)
{
    *files = NULL;
    *count = 0;
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    if (i < len && text[i] == '{')
        return parse_json(ctx, page_url, text, len, files, count);
    parse_html(page_url, text, len, files, count);
    return CDM_OK;
}

/* What one project's page (nvidia-cudnn-cuN) offers for spec and platform: the newest
 * file offered into pick and best (a file of a version already seen is not taken again:
 * manylinux_2_17 and manylinux_2_27 wheels of one version are one choice). */
struct choice {
    struct version_pick pick;
    struct index_file best;
    int cuda;
    char page[4096];
    size_t seen; /* files of any version or platform, for the message when none fits */
};

static void choose(struct choice *c, const struct index_file *files, size_t count,
                   const struct version_spec *spec, const char *platform, const char *page)
{
    c->seen += count;
    for (size_t i = 0; i < count; i++) {
        struct archive_name an;
        if (files[i].yanked || !wheel_name_parse(files[i].name, &an) ||
            strcmp(an.platform, platform) ||
            !version_spec_matches(spec, &an.version, an.cuda_major))
            continue;
        if (c->pick.found && !version_compare(&an.version, &c->pick.version) &&
            an.cuda_major == c->cuda)
            continue;
        if (version_pick_offer(&c->pick, &an.version, files[i].name)) {
            free(c->best.url);
            c->best = files[i];
            c->best.url = xstrdup(files[i].url);
            c->cuda = an.cuda_major;
            copy_text(c->page, sizeof(c->page), page);
        }
    }
}

/* One project's page read and offered to c. A page the index does not have is no error:
 * not every CUDA major has a project. */
static int read_page(cdm_ctx *ctx, struct net *net, const char *index, int cuda,
                     const struct version_spec *spec, const char *platform, struct choice *c)
{
    char *page = xasprintf("%snvidia-cudnn-cu%d/", index, cuda);
    struct strbuf body = STRBUF_INIT;
    struct index_file *files = NULL;
    size_t count = 0;
    int rc = net_get_text(net, page, PAGE_ACCEPT, PAGE_MAX, "package index page", &body);
    if (rc == CDM_ENOTFOUND)
        rc = CDM_OK;
    else if (!rc &&
             !(rc = pypi_parse_page(ctx, page, body.buf ? body.buf : "", body.len, &files, &count)))
        choose(c, files, count, spec, platform, page);
    index_files_free(files, count);
    sb_free(&body);
    free(page);
    return rc;
}

/* The choice as install uses it, or why there is none. */
static int picked(cdm_ctx *ctx, const char *index, const char *spec_text, const char *platform,
                  struct choice *c, struct index_pick *out)
{
    if (!c->pick.found)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "the package index '%s' has no %s wheel of cuDNN %s (nvidia-cudnn-"
                             "cuN: %zu files looked at)",
                             index, platform, spec_text, c->seen);
    if (c->pick.count > 1)
        return cdm_error_set(ctx, CDM_EAMBIGUOUS,
                             "'%s' matches several wheels (%s); choose one with --cuda N",
                             spec_text, sb_str(&c->pick.names));
    if (!c->best.sha256[0])
        return cdm_error_set(ctx, CDM_ECHECKSUM,
                             "the package index page '%s' gives no sha256 for '%s'; cdm "
                             "downloads only what it can check: use an index that gives hashes",
                             c->page, c->best.name);
    struct manifest_entry *e = &out->entry;
    version_format(&c->pick.version, e->version, sizeof(e->version));
    e->cuda = c->cuda;
    copy_text(e->platform, sizeof(e->platform), platform);
    COPY_STR_ARRAY(e->name, c->best.name);
    COPY_STR_ARRAY(e->relative_path, c->best.name);
    COPY_STR_ARRAY(e->sha256, c->best.sha256);
    e->size = c->best.size;
    out->url = c->best.url;
    c->best.url = NULL;
    out->page = xstrdup(c->page);
    return CDM_OK;
}

int pypi_find(cdm_ctx *ctx, struct net *net, const char *index, const char *spec_text, int cuda,
              const char *platform, struct index_pick *out)
{
    memset(out, 0, sizeof(*out));
    struct version_spec spec;
    if (!version_spec_parse(spec_text, &spec))
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' is not a version; give one such as 9.19",
                             spec_text);
    if (cuda)
        spec.cuda = cuda;
    /* the CUDA majors NVIDIA publishes cuDNN wheels for, newest first */
    static const int majors[] = {13, 12, 11};
    struct choice c = {.pick = VERSION_PICK_INIT};
    int rc = CDM_OK;
    for (size_t i = 0; i < CDM_ARRAY_LEN(majors) && !rc; i++)
        if (!spec.cuda || spec.cuda == majors[i])
            rc = read_page(ctx, net, index, majors[i], &spec, platform, &c);
    if (spec.cuda && spec.cuda != 11 && spec.cuda != 12 && spec.cuda != 13 && !rc)
        rc = read_page(ctx, net, index, spec.cuda, &spec, platform, &c);
    if (!rc)
        rc = picked(ctx, index, spec_text, platform, &c, out);
    free(c.best.url);
    version_pick_free(&c.pick);
    return rc;
}

int pypi_list(cdm_ctx *ctx, struct net *net, const char *index, int cuda, struct index_file **files,
              size_t *count)
{
    *files = NULL;
    *count = 0;
    int majors[] = {13, 12, 11};
    size_t n = CDM_ARRAY_LEN(majors);
    if (cuda)
        majors[0] = cuda, n = 1;
    int rc = CDM_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        char *page = xasprintf("%snvidia-cudnn-cu%d/", index, majors[i]);
        struct strbuf body = STRBUF_INIT;
        struct index_file *got = NULL;
        size_t got_n = 0;
        rc = net_get_text(net, page, PAGE_ACCEPT, PAGE_MAX, "package index page", &body);
        if (rc == CDM_ENOTFOUND)
            rc = CDM_OK;
        else if (!rc)
            rc = pypi_parse_page(ctx, page, body.buf ? body.buf : "", body.len, &got, &got_n);
        if (got_n) {
            *files = xrealloc(*files, (*count + got_n) * sizeof(**files));
            memcpy(*files + *count, got, got_n * sizeof(*got));
            *count += got_n;
        }
        free(got);
        sb_free(&body);
        free(page);
    }
    return rc;
}

void index_pick_free(struct index_pick *p)
{
    free(p->url);
    free(p->page);
    memset(p, 0, sizeof(*p));
}
