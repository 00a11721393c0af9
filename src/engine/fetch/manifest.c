/* Reading NVIDIA's redistrib JSON manifests: see manifest.h for the shapes accepted. */
#include "manifest.h"
#include "version.h"

#include <cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool manifest_path_safe(const char *p)
{
    if (!*p || *p == '/' || strstr(p, "://") || strchr(p, '\\') || strchr(p, ':'))
        return false;
    for (const char *c = p; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return false;
    /* every component non-empty and neither "." nor ".." */
    for (const char *part = p; *part;) {
        size_t n = strcspn(part, "/");
        if (n == 0 || (n == 1 && part[0] == '.') || (n == 2 && !strncmp(part, "..", 2)))
            return false;
        part += n;
        if (*part == '/')
            part++;
        if (!*part && part[-1] == '/')
            return false;
    }
    return true;
}

static const char *string_of(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The size: a string of decimal digits as NVIDIA writes it; a JSON number is taken too. */
static bool size_of(const cJSON *archive, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(archive, "size");
    if (cJSON_IsNumber(v)) {
        if (v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
            v->valuedouble != (double)(uint64_t)v->valuedouble)
            return false;
        *out = (uint64_t)v->valuedouble;
        return true;
    }
    if (!cJSON_IsString(v) || !*v->valuestring || strlen(v->valuestring) > 18)
        return false;
    uint64_t n = 0;
    for (const char *c = v->valuestring; *c; c++) {
        if (!isdigit((unsigned char)*c))
            return false;
        n = n * 10 + (uint64_t)(*c - '0');
    }
    *out = n;
    return true;
}

bool sha256_hex_parse(const char *s, char out[65])
{
    if (!s || strlen(s) != 64)
        return false;
    for (int i = 0; i < 64; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return false;
        out[i] = (char)tolower((unsigned char)s[i]);
    }
    out[64] = '\0';
    return true;
}

static bool sha256_of(const cJSON *archive, char out[65])
{
    return sha256_hex_parse(string_of(archive, "sha256"), out);
}

/* "cuda12" -> 12; 0 for any other key */
static int variant_cuda(const char *key)
{
    if (strncmp(key, "cuda", 4) || !isdigit((unsigned char)key[4]))
        return 0;
    char *end;
    long n = strtol(key + 4, &end, 10);
    return *end || n <= 0 || n > 99 ? 0 : (int)n;
}

static void add_entry(struct manifest *m, size_t *cap, const struct manifest_entry *e)
{
    if (m->count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        m->entries = xrealloc(m->entries, *cap * sizeof(*m->entries));
    }
    m->entries[m->count++] = *e;
}

/* One archive object: fill e, or set its problem. */
static void read_archive(const cJSON *archive, const char *component_version, const char *key,
                         struct manifest_entry *e)
{
    const char *rel = string_of(archive, "relative_path");
    if (!rel || !copy_str(e->relative_path, sizeof(e->relative_path), rel)) {
        COPY_STR_ARRAY(e->problem, "it has no usable relative_path");
        return;
    }
    struct archive_name an;
    if (!copy_str(e->name, sizeof(e->name), path_basename(e->relative_path)))
        COPY_STR_ARRAY(e->problem, "its file name is too long");
    else if (!manifest_path_safe(rel))
        snprintf(e->problem, sizeof(e->problem), "its relative_path '%.100s' is unsafe", rel);
    else if (!sha256_of(archive, e->sha256))
        COPY_STR_ARRAY(e->problem, "its sha256 is not 64 hex digits");
    else if (!size_of(archive, &e->size))
        COPY_STR_ARRAY(e->problem, "its size is not a number of bytes");
    else if (!archive_name_parse(e->name, &an))
        snprintf(e->problem, sizeof(e->problem), "'%.100s' is not a cuDNN archive name", e->name);
    else if (strcmp(an.platform, e->platform))
        snprintf(e->problem, sizeof(e->problem), "'%.100s' is not for %s", e->name, e->platform);
    else if (e->cuda && e->cuda != an.cuda_major)
        snprintf(e->problem, sizeof(e->problem), "'%.100s' is no CUDA %d build, as '%s' says",
                 e->name, e->cuda, key);
    if (e->problem[0])
        return;
    e->cuda = an.cuda_major;
    version_format(&an.version, e->version, sizeof(e->version));
    if (component_version && strcmp(component_version, e->version))
        snprintf(e->problem, sizeof(e->problem), "'%.100s' is version %s, the manifest says %.30s",
                 e->name, e->version, component_version);
}

static bool is_archive_key(const char *key)
{
    return !strcmp(key, "relative_path") || !strcmp(key, "sha256") || !strcmp(key, "md5") ||
           !strcmp(key, "size");
}

static void read_platform(struct manifest *m, size_t *cap, const cJSON *platform,
                          const char *component_version)
{
    bool flat = false;
    struct manifest_entry e;
    for (const cJSON *item = platform->child; item; item = item->next) {
        if (is_archive_key(item->string)) {
            flat = true;
            continue;
        }
        int cuda = variant_cuda(item->string);
        if (!cuda || !cJSON_IsObject(item))
            continue; /* a key of a kind not known yet: not an archive cdm can name */
        memset(&e, 0, sizeof(e));
        e.cuda = cuda;
        if (!copy_str(e.platform, sizeof(e.platform), platform->string) ||
            !copy_str(e.variant, sizeof(e.variant), item->string))
            COPY_STR_ARRAY(e.problem, "its platform or variant key is too long");
        else
            read_archive(item, component_version, item->string, &e);
        add_entry(m, cap, &e);
    }
    if (flat) {
        memset(&e, 0, sizeof(e));
        if (!copy_str(e.platform, sizeof(e.platform), platform->string))
            COPY_STR_ARRAY(e.problem, "its platform key is too long");
        else
            read_archive(platform, component_version, "", &e);
        add_entry(m, cap, &e);
    }
}

int manifest_parse(cdm_ctx *ctx, const char *text, size_t len, const char *component,
                   const char *source, struct manifest *out)
{
    memset(out, 0, sizeof(*out));
    cJSON *root = cJSON_ParseWithLength(text, len);
    int rc = CDM_OK;
    if (!cJSON_IsObject(root)) {
        rc = cdm_error_set(ctx, CDM_ENETWORK,
                           "cannot read manifest '%s': it is not JSON; is [fetch] base a "
                           "mirror of NVIDIA's redist folder?",
                           source);
        goto out;
    }
    const char *label = string_of(root, "release_label");
    const char *date = string_of(root, "release_date");
    if (!copy_str(out->label, sizeof(out->label), label ? label : "")) {
        rc = cdm_error_set(ctx, CDM_ENETWORK,
                           "cannot read manifest '%s': its release_label is "
                           "longer than any NVIDIA writes",
                           source);
        goto out;
    }
    copy_text(out->release_date, sizeof(out->release_date), date ? date : "");
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(root, component);
    if (!cJSON_IsObject(comp)) {
        rc = cdm_error_set(ctx, CDM_ENETWORK, "manifest '%s' lists no '%s' component", source,
                           component);
        goto out;
    }
    const char *version = string_of(comp, "version");
    if (!copy_str(out->version, sizeof(out->version), version ? version : "")) {
        rc = cdm_error_set(ctx, CDM_ENETWORK,
                           "cannot read manifest '%s': the version of '%s' "
                           "is longer than any NVIDIA writes",
                           source, component);
        goto out;
    }
    size_t cap = 0;
    for (const cJSON *item = comp->child; item; item = item->next)
        if (cJSON_IsObject(item)) /* the other keys are strings and the cuda_variant array */
            read_platform(out, &cap, item, version);
out:
    cJSON_Delete(root);
    return rc;
}

void manifest_free(struct manifest *m)
{
    free(m->entries);
    memset(m, 0, sizeof(*m));
}
