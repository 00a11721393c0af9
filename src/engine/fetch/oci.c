/* An OCI registry's distribution API: references, token auth, manifests and blobs. See
 * oci.h. */
#include "oci.h"
#include "oci_creds.h"
#include "platform/sha256.h"

#include <cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST_MAX (4u << 20)

bool oci_is_ref(const char *text)
{
    return text && !strncmp(text, "oci://", 6);
}

void oci_ref_free(struct oci_ref *ref)
{
    free(ref->registry);
    free(ref->repo);
    free(ref->tag);
    free(ref->digest);
    memset(ref, 0, sizeof(*ref));
}

/* A repository path as the distribution spec allows it: lowercase components of letters
 * and digits, joined by '.', '_', '-', and separated by '/'. */
static bool repo_valid(const char *repo)
{
    if (!*repo || strlen(repo) > 255)
        return false;
    for (const char *part = repo; *part;) {
        size_t n = strcspn(part, "/");
        if (!n || (!islower((unsigned char)part[0]) && !isdigit((unsigned char)part[0])) ||
            part[n - 1] == '.' || part[n - 1] == '-' || part[n - 1] == '_')
            return false;
        for (size_t i = 0; i < n; i++)
            if (!islower((unsigned char)part[i]) && !isdigit((unsigned char)part[i]) &&
                !strchr("._-", part[i]))
                return false;
        part += n;
        if (*part == '/' && !*++part)
            return false;
    }
    return true;
}

static bool tag_valid(const char *tag)
{
    size_t n = strlen(tag);
    if (!n || n > 128 || tag[0] == '.' || tag[0] == '-')
        return false;
    for (const char *c = tag; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
            return false;
    return true;
}

bool oci_digest_valid(const char *digest)
{
    if (strncmp(digest, "sha256:", 7) || strlen(digest) != 7 + 64)
        return false;
    for (const char *c = digest + 7; *c; c++)
        if (!isdigit((unsigned char)*c) && !(*c >= 'a' && *c <= 'f'))
            return false;
    return true;
}

static bool registry_valid(const char *host)
{
    if (!*host)
        return false;
    for (const char *c = host; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr(".-:[]", *c))
            return false;
    return true;
}

int oci_ref_parse(cdm_ctx *ctx, const char *text, struct oci_ref *out)
{
    memset(out, 0, sizeof(*out));
    const char *p = oci_is_ref(text) ? text + 6 : NULL;
    const char *slash = p ? strchr(p, '/') : NULL;
    if (slash) {
        out->registry = xstrndup(p, (size_t)(slash - p));
        char *rest = xstrdup(slash + 1);
        char *at = strchr(rest, '@');
        if (at) {
            *at = '\0';
            out->digest = xstrdup(at + 1);
        }
        char *colon = strrchr(rest, ':');
        if (colon && !strchr(colon, '/')) {
            *colon = '\0';
            out->tag = xstrdup(colon + 1);
        }
        out->repo = rest;
        if (registry_valid(out->registry) && repo_valid(out->repo) &&
            (!out->tag || tag_valid(out->tag)) && (!out->digest || oci_digest_valid(out->digest)))
            return CDM_OK;
    }
    oci_ref_free(out);
    return cdm_error_set(ctx, CDM_EINVAL,
                         "'%s' is not a registry reference; write oci://REGISTRY/REPOSITORY:TAG "
                         "(or @sha256:DIGEST), the repository in lowercase",
                         text);
}

/* A registry spoken to in plain HTTP: on loopback, or named in [fetch] insecure_registries. */
static bool plain_http(const cdm_ctx *ctx, const char *registry)
{
    size_t host_len = registry[0] == '[' ? strcspn(registry, "]") + 1 : strcspn(registry, ":");
    char *host = xstrndup(registry, host_len);
    bool loopback =
        !strcmp(host, "localhost") || !strcmp(host, "[::1]") || !strncmp(host, "127.", 4);
    free(host);
    for (size_t i = 0; !loopback && i < ctx->config.insecure_registry_count; i++)
        loopback = !strcmp(ctx->config.insecure_registries[i], registry);
    return loopback;
}

int oci_open(cdm_ctx *ctx, const char *text, bool push, struct oci *o)
{
    memset(o, 0, sizeof(*o));
    o->ctx = ctx;
    int rc = oci_ref_parse(ctx, text, &o->ref);
    if (rc)
        return rc;
    o->text = xstrdup(text);
    const char *host = o->ref.registry;
    if (oci_docker_hub(host)) { /* as docker reads oci://docker.io/ubuntu */
        host = "registry-1.docker.io";
        if (!strchr(o->ref.repo, '/')) {
            char *library = xasprintf("library/%s", o->ref.repo);
            free(o->ref.repo);
            o->ref.repo = library;
        }
    }
    o->v2 = xasprintf("%s://%s/v2/%s", plain_http(ctx, host) ? "http" : "https", host, o->ref.repo);
    o->actions = push ? "pull,push" : "pull";
    net_init(&o->net, ctx);
    o->net.headers = o->headers;
    return CDM_OK;
}

void oci_close(struct oci *o)
{
    net_close(&o->net);
    oci_ref_free(&o->ref);
    free(o->text);
    free(o->v2);
    free(o->authorization);
    memset(o, 0, sizeof(*o));
}

/* ---- token auth --------------------------------------------------------------------- */

char *oci_challenge_param(const char *params, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = params; *p;) {
        p += strspn(p, " ,");
        const char *eq = strchr(p, '=');
        if (!eq)
            return NULL;
        bool match = (size_t)(eq - p) == klen && str_starts_with_icase(p, key);
        const char *v = eq + 1;
        size_t n;
        if (*v == '"') {
            v++;
            n = strcspn(v, "\"");
            p = v + n + (v[n] == '"');
        } else {
            n = strcspn(v, ",");
            p = v + n;
        }
        if (match)
            return xstrndup(v, n);
    }
    return NULL;
}

static void url_escape(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (isalnum((unsigned char)*s) || strchr("-._~", *s))
            sb_addn(sb, s, 1);
        else
            sb_addf(sb, "%%%02X", (unsigned char)*s);
    }
}

int oci_collect_head(void *arg, const struct http_head *head)
{
    (void)head;
    sb_reset(arg);
    return 0;
}

int oci_collect_body(void *arg, const void *data, size_t n)
{
    struct strbuf *sb = arg;
    if (sb->len + n > MANIFEST_MAX)
        return 1;
    sb_addn(sb, data, n);
    return 0;
}

/* The token the realm gives for this repository's actions, as "Authorization: Bearer". */
static int fetch_token(struct oci *o, const char *params, const char *basic)
{
    cdm_ctx *ctx = o->ctx;
    char *realm = oci_challenge_param(params, "realm"),
         *service = oci_challenge_param(params, "service");
    struct strbuf url = STRBUF_INIT, body = STRBUF_INIT;
    int rc = CDM_OK;
    if (!realm || (strncmp(realm, "https://", 8) && strncmp(realm, "http://", 7)) ||
        (!strncmp(realm, "http://", 7) && !strncmp(o->v2, "https://", 8))) {
        rc = cdm_error_set(ctx, CDM_ENETWORK,
                           "the registry '%s' names no token service cdm may use (%s); an "
                           "https registry must name an https token service",
                           o->ref.registry, realm ? realm : "no realm");
        goto out;
    }
    sb_addf(&url, "%s%s", realm, strchr(realm, '?') ? "&" : "?");
    if (service) {
        sb_add(&url, "service=");
        url_escape(&url, service);
        sb_add(&url, "&");
    }
    char *scope = xasprintf("repository:%s:%s", o->ref.repo, o->actions);
    sb_add(&url, "scope=");
    url_escape(&url, scope);
    free(scope);
    /* the credentials, or nothing: never the registry's own header (net's) */
    const char *headers[] = {basic, NULL};
    struct http_request req = {.url = sb_str(&url),
                               .headers = headers,
                               .accept = "application/json",
                               .head = oci_collect_head,
                               .body = oci_collect_body,
                               .arg = &body};
    struct http_result r;
    if ((rc = net_send(&o->net, &req, &r)))
        goto out;
    if (r.status == 401 || r.status == 403) {
        rc = cdm_error_set(ctx, CDM_ENETWORK, "the token service of '%s' refuses %s (HTTP %d); %s",
                           o->ref.registry, basic ? "the credentials given" : "anonymous access",
                           r.status, oci_creds_hint());
        goto out;
    }
    cJSON *doc = r.status == 200 ? cJSON_ParseWithLength(body.buf, body.len) : NULL;
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(doc, "token");
    if (!cJSON_IsString(tok))
        tok = cJSON_GetObjectItemCaseSensitive(doc, "access_token");
    if (cJSON_IsString(tok) && *tok->valuestring && !strpbrk(tok->valuestring, "\r\n"))
        o->authorization = xasprintf("Authorization: Bearer %s", tok->valuestring);
    else
        rc = cdm_error_set(ctx, CDM_ENETWORK, "the token service '%s' gave no token (HTTP %d)",
                           realm, r.status);
    cJSON_Delete(doc);
out:
    sb_free(&url);
    sb_free(&body);
    free(realm);
    free(service);
    return rc;
}

/* Answer a 401's challenge: Bearer (a token from its realm) or Basic. */
static int answer_challenge(struct oci *o, const char *challenge)
{
    cdm_ctx *ctx = o->ctx;
    char *basic = NULL;
    int rc = oci_creds_basic(ctx, o->ref.registry, &basic);
    if (rc && rc != CDM_ENOTFOUND)
        return rc;
    free(o->authorization);
    o->authorization = NULL;
    if (str_starts_with_icase(challenge, "Bearer ")) {
        rc = fetch_token(o, challenge + 7, basic);
    } else if (str_starts_with_icase(challenge, "Basic") && basic) {
        o->authorization = basic;
        basic = NULL;
        rc = CDM_OK;
    } else {
        rc = cdm_error_set(ctx, CDM_ENETWORK, "the registry '%s' asks for credentials (%.60s); %s",
                           o->ref.registry, *challenge ? challenge : "no challenge",
                           oci_creds_hint());
    }
    free(basic);
    return rc;
}

int oci_send(struct oci *o, struct http_request *req, struct http_result *r)
{
    const char *const *given = req->headers;
    const char *own = given ? given[0] : NULL; /* a request has at most one of its own */
    for (int round = 0;; round++) {
        const char *headers[3] = {o->authorization ? o->authorization : own,
                                  o->authorization ? own : NULL, NULL};
        req->headers = headers;
        int rc = net_send(&o->net, req, r);
        req->headers = given;
        if (rc || r->status != 401 || round > 0)
            return rc;
        if ((rc = answer_challenge(o, r->authenticate)))
            return rc;
        o->headers[0] = o->authorization; /* for the downloads of net_get too */
    }
}

/* ---- manifests and blobs ------------------------------------------------------------- */

int oci_get_manifest(struct oci *o, const char *reference, struct strbuf *body, char digest[80])
{
    cdm_ctx *ctx = o->ctx;
    char *url = xasprintf("%s/manifests/%s", o->v2, reference);
    sb_reset(body);
    struct http_request req = {.url = url,
                               .accept = OCI_MANIFEST_TYPE,
                               .head = oci_collect_head,
                               .body = oci_collect_body,
                               .arg = body};
    struct http_result r;
    int rc = oci_send(o, &req, &r);
    if (!rc && (r.status == 404 || r.status == 410))
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "'%s' has no %s (HTTP %d)", o->text,
                           strchr(reference, ':') ? "such digest" : "such tag", r.status);
    else if (!rc && r.status != 200)
        rc = net_status_failed(&o->net, url, r.status);
    if (!rc) {
        char hex[65];
        sha256_hex_of(body->buf ? body->buf : "", body->len, hex);
        snprintf(digest, 80, "sha256:%s", hex);
    }
    free(url);
    return rc;
}

char *oci_blob_url(const struct oci *o, const char *digest)
{
    return xasprintf("%s/blobs/%s", o->v2, digest);
}

/* Where an upload session goes on: the Location of the POST's answer, made absolute. */
static char *upload_location(const struct oci *o, const char *location)
{
    if (strstr(location, "://"))
        return xstrdup(location);
    const char *path = strstr(o->v2, "://") + 3;
    size_t origin = (size_t)(strchr(path, '/') - o->v2);
    return xasprintf("%.*s%s", (int)origin, o->v2, location);
}

int oci_put_blob(struct oci *o, const char *digest, uint64_t size,
                 size_t (*read)(void *arg, void *buf, size_t n), void *arg, bool *sent)
{
    cdm_ctx *ctx = o->ctx;
    *sent = false;
    char *url = oci_blob_url(o, digest);
    struct http_request head = {.url = url, .method = "HEAD"};
    struct http_result r;
    int rc = oci_send(o, &head, &r);
    free(url);
    if (rc || r.status == 200)
        return rc;
    char *start = xasprintf("%s/blobs/uploads/", o->v2);
    struct http_request post = {.url = start, .method = "POST"};
    rc = oci_send(o, &post, &r);
    if (!rc && (r.status != 202 || !*r.location))
        rc = cdm_error_set(ctx, CDM_ENETWORK,
                           "the registry '%s' did not start an upload (HTTP %d at '%s'); is "
                           "the push allowed?",
                           o->ref.registry, r.status, start);
    free(start);
    if (rc)
        return rc;
    char *at = upload_location(o, r.location);
    char *put_url = xasprintf("%s%sdigest=%s", at, strchr(at, '?') ? "&" : "?", digest);
    free(at);
    const char *octets[] = {"Content-Type: application/octet-stream", NULL};
    struct http_request put = {.url = put_url,
                               .method = "PUT",
                               .headers = octets,
                               .upload_size = size,
                               .upload_read = read,
                               .arg = arg};
    rc = oci_send(o, &put, &r);
    if (!rc && r.status != 201)
        rc = cdm_error_set(ctx, CDM_ENETWORK,
                           "the registry '%s' did not take the blob %.19s... (HTTP %d)%s",
                           o->ref.registry, digest, r.status,
                           r.status == 400 ? ": its digest is not the one its bytes have" : "");
    free(put_url);
    *sent = rc == CDM_OK;
    return rc;
}

struct text_reader {
    const char *text;
    size_t len, at;
};

static size_t read_text(void *arg, void *buf, size_t n)
{
    struct text_reader *t = arg;
    size_t left = t->len - t->at, give = n < left ? n : left;
    memcpy(buf, t->text + t->at, give);
    t->at += give;
    return give;
}

int oci_put_text_blob(struct oci *o, const char *digest, const char *text, bool *sent)
{
    struct text_reader t = {text, strlen(text), 0};
    return oci_put_blob(o, digest, t.len, read_text, &t, sent);
}

int oci_put_manifest(struct oci *o, const char *tag, const char *manifest)
{
    char *url = xasprintf("%s/manifests/%s", o->v2, tag);
    struct text_reader text = {manifest, strlen(manifest), 0};
    const char *type[] = {"Content-Type: " OCI_MANIFEST_TYPE, NULL};
    struct http_request put = {.url = url,
                               .method = "PUT",
                               .headers = type,
                               .upload_size = text.len,
                               .upload_read = read_text,
                               .arg = &text};
    struct http_result r;
    int rc = oci_send(o, &put, &r);
    if (!rc && r.status != 201)
        rc = cdm_error_set(o->ctx, CDM_ENETWORK,
                           "the registry '%s' refused the manifest of '%s' (HTTP %d)",
                           o->ref.registry, o->text, r.status);
    free(url);
    return rc;
}
