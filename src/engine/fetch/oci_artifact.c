/* cdm's artifact in a registry: see oci_artifact.h. */
#include "oci_artifact.h"
#include "platform/sha256.h"
#include "version.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void oci_tag_for(const char *version, int cuda, const char *platform, char *out, size_t size)
{
    snprintf(out, size, "%s-cuda%d-%s", version, cuda, platform);
}

/* A tag of cdm push's form split: VERSION-cudaN-PLATFORM. */
static bool tag_parse(const char *tag, struct version *v, int *cuda, char *platform, size_t size)
{
    const char *cu = strstr(tag, "-cuda");
    char version_text[32];
    char *end = NULL;
    if (!cu || (size_t)(cu - tag) >= sizeof(version_text))
        return false;
    memcpy(version_text, tag, (size_t)(cu - tag));
    version_text[cu - tag] = '\0';
    long major = strtol(cu + 5, &end, 10);
    if (!version_parse(version_text, v) || end == cu + 5 || *end != '-' || major <= 0 || major > 99)
        return false;
    *cuda = (int)major;
    copy_text(platform, size, end + 1);
    return true;
}

/* The newest of the repository's tags that spec matches for platform, into *reference. */
static int pick_tag(struct oci *o, const struct version_spec *spec, const char *spec_text,
                    const char *platform, char **reference)
{
    cdm_ctx *ctx = o->ctx;
    char *url = xasprintf("%s/tags/list", o->v2);
    struct strbuf body = STRBUF_INIT;
    struct http_request req = {.url = url,
                               .accept = "application/json",
                               .head = oci_collect_head,
                               .body = oci_collect_body,
                               .arg = &body};
    struct http_result r;
    int rc = oci_send(o, &req, &r);
    if (!rc && r.status != 200 && r.status != 404)
        rc = net_status_failed(&o->net, url, r.status);
    cJSON *doc = !rc && r.status == 200 ? cJSON_ParseWithLength(body.buf, body.len) : NULL;
    const cJSON *tag;
    struct version best = {0};
    cJSON_ArrayForEach(tag, cJSON_GetObjectItemCaseSensitive(doc, "tags"))
    {
        struct version v;
        int cuda;
        char tag_platform[64];
        if (!cJSON_IsString(tag) ||
            !tag_parse(tag->valuestring, &v, &cuda, tag_platform, sizeof(tag_platform)) ||
            strcmp(tag_platform, platform) || !version_spec_matches(spec, &v, cuda) ||
            (*reference && version_compare(&v, &best) <= 0))
            continue;
        best = v;
        free(*reference);
        *reference = xstrdup(tag->valuestring);
    }
    cJSON_Delete(doc);
    if (!rc && !*reference)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "the registry '%s' has no %s for %s in '%s'",
                           o->ref.registry, spec_text, platform, o->ref.repo);
    sb_free(&body);
    free(url);
    return rc;
}

int oci_pick(struct oci *o, const char *spec_text, int cuda, const char *platform, char **reference)
{
    *reference = NULL;
    if (o->ref.digest || o->ref.tag) {
        *reference = xstrdup(o->ref.digest ? o->ref.digest : o->ref.tag);
        return CDM_OK;
    }
    struct version_spec spec;
    if (!spec_text || !version_spec_parse(spec_text, &spec))
        return cdm_error_set(o->ctx, CDM_EINVAL,
                             "'%s' names no tag; write oci://%s/%s:TAG (cdm push names tags "
                             "VERSION-cudaN-PLATFORM)",
                             o->text, o->ref.registry, o->ref.repo);
    if (cuda)
        spec.cuda = cuda;
    return pick_tag(o, &spec, spec_text, platform, reference);
}

static const char *string_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The one layer of cdm's artifact, into e; false when the manifest is not cdm's. */
static bool layer_of(const cJSON *manifest, struct manifest_entry *e)
{
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(manifest, "layers");
    const cJSON *layer = cJSON_GetArrayItem(layers, 0);
    const char *digest = string_of(layer, "digest");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(layer, "size");
    const char *title =
        string_of(cJSON_GetObjectItemCaseSensitive(layer, "annotations"), OCI_TITLE);
    const char *type = string_of(manifest, "artifactType");
    if (cJSON_GetArraySize(layers) != 1 || !digest || !oci_digest_valid(digest) ||
        !cJSON_IsNumber(size) || size->valuedouble < 0 || size->valuedouble > 9e15 || !title ||
        !type || strcmp(type, OCI_ARTIFACT_TYPE) || !manifest_path_safe(title) ||
        strchr(title, '/'))
        return false;
    copy_text(e->sha256, sizeof(e->sha256), digest + 7);
    e->size = (uint64_t)size->valuedouble;
    copy_text(e->name, sizeof(e->name), title);
    copy_text(e->relative_path, sizeof(e->relative_path), title);
    return true;
}

bool oci_manifest_layer(const char *text, size_t n, struct manifest_entry *e)
{
    memset(e, 0, sizeof(*e));
    cJSON *doc = cJSON_ParseWithLength(text, n);
    bool ok = doc && layer_of(doc, e);
    cJSON_Delete(doc);
    return ok;
}

bool oci_config_describes(const char *text, size_t n, struct manifest_entry *e)
{
    cJSON *whole = cJSON_ParseWithLength(text, n);
    const cJSON *doc = cJSON_GetObjectItemCaseSensitive(whole, "cdm");
    const char *version = string_of(doc, "version"), *platform = string_of(doc, "platform");
    const char *sha256 = string_of(doc, "sha256"), *archive = string_of(doc, "archive");
    const cJSON *cuda = cJSON_GetObjectItemCaseSensitive(doc, "cuda");
    bool ok = version && platform && sha256 && archive && cJSON_IsNumber(cuda) &&
              cuda->valuedouble >= 1 && cuda->valuedouble <= 99 && !strcmp(sha256, e->sha256) &&
              !strcmp(archive, e->name);
    if (ok) {
        copy_text(e->version, sizeof(e->version), version);
        copy_text(e->platform, sizeof(e->platform), platform);
        e->cuda = (int)cuda->valuedouble;
    }
    cJSON_Delete(whole);
    return ok;
}

/* The config blob, fetched and held to its digest, said to describe the layer in e. */
static int read_config(struct oci *o, const cJSON *manifest, const char *reference,
                       struct manifest_entry *e)
{
    cdm_ctx *ctx = o->ctx;
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(manifest, "config");
    const char *digest = string_of(config, "digest"), *type = string_of(config, "mediaType");
    if (!digest || !oci_digest_valid(digest) || !type || strcmp(type, OCI_CONFIG_TYPE))
        return cdm_error_set(ctx, CDM_EARCHIVE, "'%s' (%s) has no config of cdm's", o->text,
                             reference);
    char *url = oci_blob_url(o, digest);
    struct strbuf body = STRBUF_INIT;
    int rc = net_get_text(&o->net, url, NULL, 1u << 16, "config of cdm's", &body);
    free(url);
    char hex[65];
    sha256_hex_of(body.buf ? body.buf : "", body.len, hex);
    bool same_bytes = !strcmp(hex, digest + 7);
    if (!rc && (!same_bytes || !oci_config_describes(body.buf ? body.buf : "", body.len, e)))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "the config of '%s' (%s) does not describe its layer%s; push it "
                           "again with cdm push",
                           o->text, reference,
                           same_bytes ? "" : " (its bytes are not its digest's)");
    sb_free(&body);
    return rc;
}

int oci_read_artifact(struct oci *o, const char *reference, struct manifest_entry *e)
{
    cdm_ctx *ctx = o->ctx;
    memset(e, 0, sizeof(*e));
    struct strbuf body = STRBUF_INIT;
    char digest[80];
    int rc = oci_get_manifest(o, reference, &body, digest);
    if (!rc && o->ref.digest && strcmp(digest, o->ref.digest))
        rc = cdm_error_set(ctx, CDM_ECHECKSUM,
                           "the registry '%s' gave a manifest of digest %s for %s; refused",
                           o->ref.registry, digest, o->ref.digest);
    cJSON *doc = rc ? NULL : cJSON_ParseWithLength(body.buf, body.len);
    if (!rc && !layer_of(doc, e))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "'%s' (%s) is not an artifact of cdm's (an OCI manifest of type %s "
                           "with one titled layer); cdm push makes them",
                           o->text, reference, OCI_ARTIFACT_TYPE);
    if (!rc)
        rc = read_config(o, doc, reference, e);
    cJSON_Delete(doc);
    sb_free(&body);
    return rc;
}
