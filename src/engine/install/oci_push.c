/*
 * cdm push: an install's archive stored in an OCI registry as cdm's artifact (the shape is
 * in fetch/oci_artifact.h). The archive is the file the install was made from, found in
 * [install] sources or given, and held to the install's recorded sha256 before anything is
 * sent; the registry checks each blob against its digest as it takes it.
 */
#include "cdm_archive.h"
#include "internal.h"
#include "oci_artifact.h"
#include "platform/fs.h"
#include "platform/sha256.h"
#include "sources.h"
#include "version.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file in->archive_name names, with the install's bytes: given, else in the sources. */
static int find_archive(cdm_ctx *ctx, const struct cdm_install_info *in, const char *given,
                        char **path)
{
    char hex[65] = "";
    uint64_t size = 0;
    struct version_spec spec;
    *path = NULL;
    if (given)
        *path = xstrdup(given);
    else if (version_spec_parse(in->id, &spec) &&
             sources_find(ctx, &spec, in->platform, in->id, path) != CDM_OK)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "the archive %s came from ('%s') is in no [install] sources "
                             "folder; give it with --archive FILE",
                             in->id, in->archive_name);
    int rc = archive_hash(ctx, *path, hex, &size);
    if (!rc && strcmp(hex, in->sha256))
        rc = cdm_error_set(ctx, CDM_EMISMATCH,
                           "'%s' is not the archive %s was installed from (its sha256 is "
                           "%.12s..., the install's %.12s...); nothing was sent",
                           *path, in->id, hex, in->sha256);
    return rc;
}

/* The OCI os and architecture of a platform ("linux-x86_64": linux, amd64). */
static void oci_platform(const char *platform, const char **os, const char **arch)
{
    *os = str_starts_with(platform, "windows") ? "windows" : "linux";
    *arch = str_ends_with(platform, "x86_64") ? "amd64"
            : str_ends_with(platform, "sbsa") || str_ends_with(platform, "aarch64") ||
                    str_ends_with(platform, "arm64")
                ? "arm64"
                : "unknown";
}

/* The config blob: an OCI image config (so that image tools, skopeo inspect among them,
 * read the artifact), with labels for people and the "cdm" object cdm reads back. */
static char *config_json(const struct cdm_install_info *in, const char *layer_digest)
{
    const char *os, *arch;
    oci_platform(in->platform, &os, &arch);
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "architecture", arch);
    cJSON_AddStringToObject(c, "os", os);
    cJSON *labels = cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "config"), "Labels");
    cJSON_AddStringToObject(labels, "org.opencontainers.image.title", in->archive_name);
    cJSON_AddStringToObject(labels, "org.opencontainers.image.version", in->version);
    cJSON_AddStringToObject(labels, "dev.cdm.install", in->id);
    cJSON *rootfs = cJSON_AddObjectToObject(c, "rootfs");
    cJSON_AddStringToObject(rootfs, "type", "layers");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rootfs, "diff_ids"),
                         cJSON_CreateString(layer_digest));
    cJSON *cdm = cJSON_AddObjectToObject(c, "cdm");
    cJSON_AddStringToObject(cdm, "id", in->id);
    cJSON_AddStringToObject(cdm, "version", in->version);
    cJSON_AddNumberToObject(cdm, "cuda", in->cuda);
    cJSON_AddStringToObject(cdm, "platform", in->platform);
    cJSON_AddStringToObject(cdm, "source", in->source);
    cJSON_AddStringToObject(cdm, "archive", in->archive_name);
    cJSON_AddNumberToObject(cdm, "size", (double)in->archive_size);
    cJSON_AddStringToObject(cdm, "sha256", in->sha256);
    cJSON_AddBoolToObject(cdm, "official", in->official);
    char *text = cJSON_PrintUnformatted(c);
    cJSON_Delete(c);
    return text;
}

static cJSON *descriptor(const char *type, const char *digest, uint64_t size)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "mediaType", type);
    cJSON_AddStringToObject(d, "digest", digest);
    cJSON_AddNumberToObject(d, "size", (double)size);
    return d;
}

/* The archive's media type, by its name. */
static const char *layer_type(const char *name)
{
    if (str_ends_with_icase(name, ".tar.xz"))
        return "application/x-xz";
    if (str_ends_with_icase(name, ".zip") || str_ends_with_icase(name, ".whl"))
        return "application/zip";
    return "application/octet-stream";
}

static char *manifest_json(const struct cdm_install_info *in, const char *config_digest,
                           size_t config_size, const char *layer_digest)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "schemaVersion", 2);
    cJSON_AddStringToObject(m, "mediaType", OCI_MANIFEST_TYPE);
    cJSON_AddStringToObject(m, "artifactType", OCI_ARTIFACT_TYPE);
    cJSON_AddItemToObject(m, "config", descriptor(OCI_CONFIG_TYPE, config_digest, config_size));
    cJSON *layer = descriptor(layer_type(in->archive_name), layer_digest, in->archive_size);
    cJSON *notes = cJSON_AddObjectToObject(layer, "annotations");
    cJSON_AddStringToObject(notes, OCI_TITLE, in->archive_name);
    cJSON *layers = cJSON_AddArrayToObject(m, "layers");
    cJSON_AddItemToArray(layers, layer);
    cJSON *annotations = cJSON_AddObjectToObject(m, "annotations");
    cJSON_AddStringToObject(annotations, "org.opencontainers.image.title", in->archive_name);
    cJSON_AddStringToObject(annotations, "org.opencontainers.image.version", in->version);
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return text;
}

static void digest_of(const char *text, char out[80])
{
    char hex[65];
    sha256_hex_of(text, strlen(text), hex);
    snprintf(out, 80, "sha256:%s", hex);
}

struct upload {
    cdm_ctx *ctx;
    struct fs_reader *file; /* the archive */
};

static size_t read_upload(void *arg, void *buf, size_t n)
{
    struct upload *u = arg;
    long long got = fs_reader_read(u->ctx, u->file, buf, n);
    return got < 0 ? SIZE_MAX : (size_t)got;
}

/* The archive's blob, then the config's. */
static int send_blobs(struct oci *o, const char *archive, const struct cdm_install_info *in,
                      const char *config, const char *config_digest, struct cdm_push_result *out)
{
    cdm_ctx *ctx = o->ctx;
    struct upload up = {.ctx = ctx};
    uint64_t size = 0;
    int rc = fs_reader_open(ctx, archive, &up.file, &size);
    if (!rc && size != in->archive_size)
        rc = cdm_error_set(ctx, CDM_EMISMATCH, "'%s' changed while cdm read it; nothing was sent",
                           archive);
    if (!rc)
        rc = oci_put_blob(o, out->layer, size, read_upload, &up, &out->layer_sent);
    if (up.file)
        fs_reader_close(up.file);
    bool sent;
    if (!rc)
        rc = oci_put_text_blob(o, config_digest, config, &sent);
    return rc;
}

int cdm_push(cdm_ctx *ctx, const struct cdm_push_request *req, struct cdm_push_result *out)
{
    memset(out, 0, sizeof(*out));
    struct cdm_install_info in;
    struct oci o;
    char *archive = NULL, *config = NULL, *manifest = NULL, tag[160], config_digest[80];
    int rc = cdm_resolve(ctx, req->spec, req->cuda, &in);
    if (!rc && (!*in.sha256 || !strcmp(in.source, "folder")))
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "%s was installed from a folder, not from an archive; there is no "
                           "archive to push",
                           in.id);
    if (rc || (rc = oci_open(ctx, req->target, true, &o)))
        return rc;
    if (o.ref.digest) {
        rc = cdm_error_set(ctx, CDM_EINVAL,
                           "'%s' names a digest; cdm push stores under a tag (oci://%s/%s:TAG)",
                           req->target, o.ref.registry, o.ref.repo);
        goto out;
    }
    if ((rc = find_archive(ctx, &in, req->archive, &archive)))
        goto out;
    if (o.ref.tag)
        copy_text(tag, sizeof(tag), o.ref.tag);
    else
        oci_tag_for(in.version, in.cuda, in.platform, tag, sizeof(tag));
    COPY_STR_ARRAY(out->id, in.id);
    snprintf(out->layer, sizeof(out->layer), "sha256:%s", in.sha256);
    out->size = in.archive_size;
    config = config_json(&in, out->layer);
    digest_of(config, config_digest);
    manifest = manifest_json(&in, config_digest, strlen(config), out->layer);
    if ((rc = send_blobs(&o, archive, &in, config, config_digest, out)) ||
        (rc = oci_put_manifest(&o, tag, manifest)))
        goto out;
    digest_of(manifest, out->digest);
    snprintf(out->reference, sizeof(out->reference), "oci://%s/%s:%s", o.ref.registry, o.ref.repo,
             tag);
out:
    free(archive);
    free(config);
    free(manifest);
    oci_close(&o);
    return rc;
}
