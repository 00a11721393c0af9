/*
 * cdm sbom: an install's bill of materials as SPDX 2.3 or CycloneDX 1.5 JSON, every file
 * with its hashes (read now and held to the install's record by the engine), the file it
 * came from with its hash, and NVIDIA's licence, quoted from the install, with its
 * acceptance when one is on record.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_CUDA, OPT_FORMAT };

#define LICENSE_REF  "LicenseRef-NVIDIA-cuDNN"
#define LICENSE_NAME "NVIDIA cuDNN Software License Agreement"
#define LICENSE_URL  "https://docs.nvidia.com/deeplearning/cudnn/latest/reference/eula.html"
#define SUPPLIER     "NVIDIA Corporation"

/* The package's name as its source spells it: a wheel's project, else NVIDIA's "cudnn". */
static const char *package_name(const struct cdm_sbom *s, char *buf, size_t size)
{
    const char *name = s->install.archive_name;
    if (!strcmp(s->install.source, "wheel") && !strncmp(name, "nvidia_cudnn_cu", 15)) {
        snprintf(buf, size, "nvidia-cudnn-cu%d", s->install.cuda);
        return buf;
    }
    return "cudnn";
}

static void license_text(const struct cdm_sbom *s, struct json *j, const char *key)
{
    if (s->license_text) {
        json_kv_string(j, key, s->license_text);
    } else {
        char *text = xasprintf("The install holds no licence file; NVIDIA's agreement is at %s",
                               LICENSE_URL);
        json_kv_string(j, key, text);
        free(text);
    }
}

/* What cdm knows of the install's origin and licence, in words (both formats). */
static char *origin_text(const struct cdm_sbom *s)
{
    char when[32];
    cli_format_time(s->accepted_at, when, sizeof(when));
    char *accepted =
        s->accepted ? xasprintf("; NVIDIA's licence accepted on record at %s (%s)", when,
                                !strcmp(s->accepted_how, "config") ? "[install] accept_license"
                                                                   : "cdm install --accept-license")
                    : xstrdup("; no acceptance of NVIDIA's licence on record");
    char *text = xasprintf("installed by cdm from the %s '%s' (%llu bytes, sha256 %s)%s%s%s",
                           s->install.source, s->install.archive_name,
                           (unsigned long long)s->install.archive_size, s->install.sha256,
                           s->license_file[0] ? "; licence file " : "", s->license_file, accepted);
    free(accepted);
    return text;
}

static void spdx_checksum(struct json *j, const char *algorithm, const char *value)
{
    json_object_begin(j);
    json_kv_string(j, "algorithm", algorithm);
    json_kv_string(j, "checksumValue", value);
    json_object_end(j);
}

static void spdx_package(const struct cdm_sbom *s, struct json *j)
{
    char name_buf[32];
    json_object_begin(j);
    json_kv_string(j, "SPDXID", "SPDXRef-Package-cudnn");
    json_kv_string(j, "name", package_name(s, name_buf, sizeof(name_buf)));
    json_kv_string(j, "versionInfo", s->install.version);
    json_kv_string(j, "supplier", "Organization: " SUPPLIER);
    json_kv_string(j, "downloadLocation", "NOASSERTION");
    json_kv_string(j, "packageFileName", s->install.archive_name);
    json_key(j, "checksums");
    json_array_begin(j);
    spdx_checksum(j, "SHA256", s->install.sha256);
    json_array_end(j);
    json_kv_bool(j, "filesAnalyzed", true);
    json_key(j, "packageVerificationCode");
    json_object_begin(j);
    json_kv_string(j, "packageVerificationCodeValue", s->verification_code);
    json_object_end(j);
    json_kv_string(j, "licenseConcluded", LICENSE_REF);
    json_kv_string(j, "licenseDeclared", LICENSE_REF);
    json_kv_string(j, "copyrightText", "NOASSERTION");
    json_kv_string(j, "primaryPackagePurpose", "LIBRARY");
    char *origin = origin_text(s);
    json_kv_string(j, "sourceInfo", origin);
    free(origin);
    json_object_end(j);
}

static void spdx_files(const struct cdm_sbom *s, struct json *j)
{
    json_key(j, "files");
    json_array_begin(j);
    for (size_t i = 0; i < s->nfiles; i++) {
        const struct cdm_sbom_file *f = &s->files[i];
        if (!f->sha1[0])
            continue; /* a link to no file of the install: nothing to hash */
        char *id = xasprintf("SPDXRef-File-%zu", i);
        char *name = xasprintf("./%s", f->path);
        json_object_begin(j);
        json_kv_string(j, "SPDXID", id);
        json_kv_string(j, "fileName", name);
        json_key(j, "checksums");
        json_array_begin(j);
        spdx_checksum(j, "SHA1", f->sha1);
        spdx_checksum(j, "SHA256", f->sha256);
        json_array_end(j);
        json_kv_string(j, "licenseConcluded", LICENSE_REF);
        json_kv_string(j, "copyrightText", "NOASSERTION");
        if (f->link_target) {
            char *comment = xasprintf("a symbolic link to '%s'", f->link_target);
            json_kv_string(j, "comment", comment);
            free(comment);
        }
        json_object_end(j);
        free(name);
        free(id);
    }
    json_array_end(j);
}

static void spdx_relation(struct json *j, const char *from, const char *type, const char *to)
{
    json_object_begin(j);
    json_kv_string(j, "spdxElementId", from);
    json_kv_string(j, "relationshipType", type);
    json_kv_string(j, "relatedSpdxElement", to);
    json_object_end(j);
}

static void spdx_relations(const struct cdm_sbom *s, struct json *j)
{
    json_key(j, "relationships");
    json_array_begin(j);
    spdx_relation(j, "SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Package-cudnn");
    for (size_t i = 0; i < s->nfiles; i++) {
        if (!s->files[i].sha1[0])
            continue;
        char *id = xasprintf("SPDXRef-File-%zu", i);
        spdx_relation(j, "SPDXRef-Package-cudnn", "CONTAINS", id);
        free(id);
    }
    json_array_end(j);
}

static void spdx_document(const struct cdm_sbom *s, struct json *j)
{
    char created[32];
    cli_format_time(s->created, created, sizeof(created));
    json_object_begin(j);
    json_kv_string(j, "spdxVersion", "SPDX-2.3");
    json_kv_string(j, "dataLicense", "CC0-1.0");
    json_kv_string(j, "SPDXID", "SPDXRef-DOCUMENT");
    char *name = xasprintf("cudnn-%s", s->install.id);
    char *space = xasprintf("https://spdx.org/spdxdocs/cdm/%s-%s", s->install.id, s->uuid);
    json_kv_string(j, "name", name);
    json_kv_string(j, "documentNamespace", space);
    free(space);
    free(name);
    json_key(j, "creationInfo");
    json_object_begin(j);
    json_kv_string(j, "created", created);
    json_key(j, "creators");
    json_array_begin(j);
    json_string(j, "Tool: cdm-" CDM_VERSION_STRING);
    json_array_end(j);
    json_object_end(j);
    json_key(j, "documentDescribes");
    json_array_begin(j);
    json_string(j, "SPDXRef-Package-cudnn");
    json_array_end(j);
    json_key(j, "packages");
    json_array_begin(j);
    spdx_package(s, j);
    json_array_end(j);
    spdx_files(s, j);
    json_key(j, "hasExtractedLicensingInfos");
    json_array_begin(j);
    json_object_begin(j);
    json_kv_string(j, "licenseId", LICENSE_REF);
    json_kv_string(j, "name", LICENSE_NAME);
    license_text(s, j, "extractedText");
    json_key(j, "seeAlsos");
    json_array_begin(j);
    json_string(j, LICENSE_URL);
    json_array_end(j);
    json_object_end(j);
    json_array_end(j);
    spdx_relations(s, j);
    json_object_end(j);
}

/* ---- CycloneDX 1.5 -------------------------------------------------------------------- */

static void cdx_hash(struct json *j, const char *alg, const char *content)
{
    json_object_begin(j);
    json_kv_string(j, "alg", alg);
    json_kv_string(j, "content", content);
    json_object_end(j);
}

static void cdx_property(struct json *j, const char *name, const char *value)
{
    json_object_begin(j);
    json_kv_string(j, "name", name);
    json_kv_string(j, "value", value);
    json_object_end(j);
}

static void cdx_license(const struct cdm_sbom *s, struct json *j)
{
    json_key(j, "licenses");
    json_array_begin(j);
    json_object_begin(j);
    json_key(j, "license");
    json_object_begin(j);
    json_kv_string(j, "name", LICENSE_NAME);
    json_key(j, "text");
    json_object_begin(j);
    json_kv_string(j, "contentType", "text/plain");
    license_text(s, j, "content");
    json_object_end(j);
    json_kv_string(j, "url", LICENSE_URL);
    json_object_end(j);
    json_object_end(j);
    json_array_end(j);
}

static void cdx_files(const struct cdm_sbom *s, struct json *j)
{
    json_key(j, "components");
    json_array_begin(j);
    for (size_t i = 0; i < s->nfiles; i++) {
        const struct cdm_sbom_file *f = &s->files[i];
        if (!f->sha1[0])
            continue;
        char *ref = xasprintf("file-%zu", i);
        json_object_begin(j);
        json_kv_string(j, "type", "file");
        json_kv_string(j, "bom-ref", ref);
        json_kv_string(j, "name", f->path);
        json_key(j, "hashes");
        json_array_begin(j);
        cdx_hash(j, "SHA-1", f->sha1);
        cdx_hash(j, "SHA-256", f->sha256);
        json_array_end(j);
        if (f->link_target) {
            json_key(j, "properties");
            json_array_begin(j);
            cdx_property(j, "cdm:link-target", f->link_target);
            json_array_end(j);
        }
        json_object_end(j);
        free(ref);
    }
    json_array_end(j);
}

static void cdx_component(const struct cdm_sbom *s, struct json *j)
{
    char name_buf[32];
    char *ref = xasprintf("cudnn-%s", s->install.id);
    json_object_begin(j);
    json_kv_string(j, "type", "library");
    json_kv_string(j, "bom-ref", ref);
    json_key(j, "supplier");
    json_object_begin(j);
    json_kv_string(j, "name", SUPPLIER);
    json_object_end(j);
    json_kv_string(j, "name", package_name(s, name_buf, sizeof(name_buf)));
    json_kv_string(j, "version", s->install.version);
    json_key(j, "hashes");
    json_array_begin(j);
    cdx_hash(j, "SHA-256", s->install.sha256);
    json_array_end(j);
    cdx_license(s, j);
    char *origin = origin_text(s);
    json_kv_string(j, "description", origin);
    free(origin);
    json_key(j, "properties");
    json_array_begin(j);
    cdx_property(j, "cdm:install", s->install.id);
    cdx_property(j, "cdm:source", s->install.source);
    cdx_property(j, "cdm:archive", s->install.archive_name);
    cdx_property(j, "cdm:platform", s->install.platform);
    cdx_property(j, "cdm:license-accepted", s->accepted ? s->accepted_how : "no");
    json_array_end(j);
    cdx_files(s, j);
    json_object_end(j);
    free(ref);
}

static void cyclonedx_document(const struct cdm_sbom *s, struct json *j)
{
    char created[32];
    cli_format_time(s->created, created, sizeof(created));
    char *serial = xasprintf("urn:uuid:%s", s->uuid);
    json_object_begin(j);
    json_kv_string(j, "bomFormat", "CycloneDX");
    json_kv_string(j, "specVersion", "1.5");
    json_kv_string(j, "serialNumber", serial);
    json_kv_int(j, "version", 1);
    json_key(j, "metadata");
    json_object_begin(j);
    json_kv_string(j, "timestamp", created);
    json_key(j, "tools");
    json_object_begin(j);
    json_key(j, "components");
    json_array_begin(j);
    json_object_begin(j);
    json_kv_string(j, "type", "application");
    json_kv_string(j, "name", "cdm");
    json_kv_string(j, "version", CDM_VERSION_STRING);
    json_object_end(j);
    json_array_end(j);
    json_object_end(j);
    json_object_end(j);
    json_key(j, "components");
    json_array_begin(j);
    cdx_component(s, j);
    json_array_end(j);
    json_object_end(j);
    free(serial);
}

static int run_sbom(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    const char *format = args->value[OPT_FORMAT] ? args->value[OPT_FORMAT] : "spdx";
    bool spdx = !strcmp(format, "spdx");
    if (!spdx && strcmp(format, "cyclonedx"))
        return cli_usage_error(cli,
                               "--format takes spdx (SPDX 2.3 JSON) or cyclonedx "
                               "(CycloneDX 1.5 JSON), not '%s'",
                               format);
    struct cdm_sbom s;
    if (cdm_sbom(ctx, args->pos[0], (int)args->number[OPT_CUDA], &s) != CDM_OK)
        return cli_fail(cli);
    struct json j;
    json_init(&j);
    if (spdx)
        spdx_document(&s, &j);
    else
        cyclonedx_document(&s, &j);
    json_print(&j, stdout);
    json_free(&j);
    cdm_sbom_free(&s);
    return EXIT_OK;
}

static const struct cli_arg sbom_args[] = {
    {"VERSION|PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_INSTALLS},
    CLI_ARG_END,
};

static const struct cli_option sbom_options[] = {
    [OPT_CUDA] = CLI_OPT_CUDA,
    [OPT_FORMAT] = CLI_OPT_VALUE("format", "spdx|cyclonedx", CLI_COMPLETE_CHOICES,
                                 "SPDX 2.3 JSON (the default) or CycloneDX 1.5 JSON"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_sbom = {
    .name = "sbom",
    .needs = CLI_NEEDS_CONTEXT,
    .run = run_sbom,
    .summary = "an install's bill of materials (SPDX 2.3 or CycloneDX 1.5 JSON)",
    .args = sbom_args,
    .options = sbom_options,
    .description =
        "Writes to standard output the bill of materials of an install (VERSION), or of the "
        "install a project uses (PROJECT, a folder; by default the nearest project): every "
        "file with its SHA-256 and SHA-1, read now and held to the install's record (a file "
        "changed since is refused: 'cdm verify' says which), a symbolic link described by the "
        "file it leads to; the file the install came from, its kind and SHA-256; NVIDIA's "
        "licence, quoted from the install's own licence file, and whether it was accepted on "
        "record ('cdm install --accept-license'). SOURCE_DATE_EPOCH, when set, is the bill's "
        "time, and the same install then gives the same bill.\n"
        " cdm sbom 9.1 --format cyclonedx > cudnn.cdx.json\n",
};
