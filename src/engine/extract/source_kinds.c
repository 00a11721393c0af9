/* The forms cuDNN comes in, one row each (source_kinds.h). */
#include "source_kinds.h"

#include <string.h>

static bool any_name(const char *file_name)
{
    (void)file_name;
    return true;
}

/* NVIDIA's redist archive says everything in its name (checked against its headers). */
static int read_archive(cdm_ctx *ctx, const char *path, const char *file_name, struct source *s)
{
    (void)path;
    if (archive_name_parse(file_name, &s->name))
        return CDM_OK;
    return cdm_error_set(ctx, CDM_EARCHIVE,
                         "cannot tell the cuDNN version from the name '%s'; keep NVIDIA's "
                         "file name (such as cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz, "
                         "or nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl)",
                         file_name);
}

/* A wheel says it in its dist-info, which the file name need not match: pip's cache and
 * some mirrors rename wheels. */
static int read_wheel(cdm_ctx *ctx, const char *path, const char *file_name, struct source *s)
{
    int rc = wheel_read(ctx, path, s->arriving, &s->wheel);
    if (rc)
        return rc;
    struct archive_name *n = &s->name;
    s->select = &wheel_select;
    n->version = s->wheel.version;
    n->cuda_major = s->wheel.cuda_major;
    n->cuda_minor = -1;
    COPY_STR_ARRAY(n->platform, s->wheel.platform);
    n->layout = layout_for_version(&n->version);
    const char *base = path_basename(file_name);
    size_t stem = strlen(base) - strlen(".whl");
    if (stem >= sizeof(n->stem))
        stem = sizeof(n->stem) - 1;
    memcpy(n->stem, base, stem);
    n->stem[stem] = '\0';
    return CDM_OK;
}

/* A conda package says it in its info/index.json. */
static int read_conda(cdm_ctx *ctx, const char *path, const char *file_name, struct source *s)
{
    int rc = conda_read(ctx, path, &s->conda);
    if (rc)
        return rc;
    struct archive_name *n = &s->name;
    s->select = conda_select(&s->conda);
    n->version = s->conda.version;
    n->cuda_major = s->conda.cuda_major;
    n->cuda_minor = -1;
    COPY_STR_ARRAY(n->platform, s->conda.platform);
    n->layout = layout_for_version(&n->version);
    copy_text(n->stem, sizeof(n->stem), path_basename(file_name));
    return CDM_OK;
}

/* A Debian package says it in its control, an RPM package in its header. */
static int read_package(const char *file_name, struct source *s)
{
    struct archive_name *n = &s->name;
    s->select = &syspkg_select;
    n->version = s->pkg.version;
    n->cuda_major = s->pkg.cuda_major;
    n->cuda_minor = -1;
    COPY_STR_ARRAY(n->platform, s->pkg.platform);
    n->layout = layout_for_version(&n->version);
    copy_text(n->stem, sizeof(n->stem), path_basename(file_name));
    return CDM_OK;
}

static int read_deb(cdm_ctx *ctx, const char *path, const char *file_name, struct source *s)
{
    int rc = deb_read(ctx, path, &s->pkg);
    return rc ? rc : read_package(file_name, s);
}

static int read_rpm(cdm_ctx *ctx, const char *path, const char *file_name, struct source *s)
{
    int rc = rpm_read(ctx, path, &s->pkg);
    return rc ? rc : read_package(file_name, s);
}

static int check_package(cdm_ctx *ctx, const char *path, const struct source *s, const char *dest,
                         const struct extract_result *x)
{
    return syspkg_check(ctx, path, &s->pkg, dest, x);
}

static int check_conda(cdm_ctx *ctx, const char *path, const struct source *s, const char *dest,
                       const struct extract_result *x)
{
    (void)dest;
    return conda_check_paths(ctx, path, &s->conda, x);
}

static int check_wheel(cdm_ctx *ctx, const char *path, const struct source *s, const char *dest,
                       const struct extract_result *x)
{
    (void)dest;
    return wheel_check_record(ctx, path, &s->wheel, x);
}

/* In the order they are tried: the archive takes every name the others leave. */
static const struct source_kind source_kinds[] = {
    {"wheel", "METADATA", wheel_file_name, read_wheel, check_wheel, NULL, NULL, false},
    {"conda", "info/index.json", conda_file_name, read_conda, check_conda, conda_payload, NULL,
     false},
    {"deb", "control", deb_file_name, read_deb, check_package, NULL, deb_data_window, true},
    {"rpm", "header", rpm_file_name, read_rpm, check_package, NULL, NULL, true},
    {"archive", "name", any_name, read_archive, NULL, NULL, NULL, false},
};

int source_open(cdm_ctx *ctx, const char *path, const char *file_name,
                const struct arriving *arriving, struct source *out)
{
    memset(out, 0, sizeof(*out));
    out->arriving = arriving;
    for (size_t i = 0; i < CDM_ARRAY_LEN(source_kinds); i++) {
        if (source_kinds[i].claims(file_name)) {
            out->kind = &source_kinds[i];
            return out->kind->read(ctx, path, file_name, out);
        }
    }
    return cdm_error_set(ctx, CDM_EARCHIVE, "cannot install '%s': of no kind cdm reads", path);
}

void source_free(struct source *s)
{
    wheel_info_free(&s->wheel);
    conda_info_free(&s->conda);
    syspkg_free(&s->pkg);
}
