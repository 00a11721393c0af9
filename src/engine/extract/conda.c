/* cuDNN as a conda package: its info/ read, its paths.json checked (conda.h). */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>
#include <archive_entry.h>

#include "archive_walk.h"
#include "conda.h"
#include "entry_check.h"
#include "platform/fs.h"

#include <cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* index.json and paths.json of a cuDNN package are a few KiB; its info tarball is small */
#define INFO_FILE_MAX (16u << 20)
#define INFO_TAR_MAX  (64u << 20)

static const char *const linux_folders[] = {"lib", "include", NULL};
static const char *const windows_folders[] = {"bin", "include", "lib", NULL};
static const struct entry_select linux_select = {"", linux_folders, NULL, NULL};
static const struct entry_select windows_select = {"Library", windows_folders, NULL, NULL};

bool conda_file_name(const char *file_name)
{
    return str_ends_with_icase(file_name, ".conda") || str_ends_with_icase(file_name, ".tar.bz2");
}

const struct entry_select *conda_select(const struct conda_info *info)
{
    return info->windows ? &windows_select : &linux_select;
}

/* ---- reading info/ ----------------------------------------------------------------------- */

struct info_files {
    struct strbuf index, paths;
};

/* info/index.json and info/paths.json from a tar reader, stopping once both are read
 * (conda puts info/ first). */
static int info_from_tar(cdm_ctx *ctx, const char *path, struct archive *a, struct info_files *f)
{
    struct archive_entry *e;
    int rc = CDM_OK;
    while (!rc && (!f->index.len || !f->paths.len)) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN)
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "cannot read conda package '%s': %s; get the package again", path,
                                 archive_error_string(a));
        char name[4096];
        const char *raw = archive_entry_pathname(e);
        if (!raw || entry_path_check(raw, name, sizeof(name)))
            continue; /* the walk refuses it, if it is to be unpacked */
        if (!strcmp(name, "info/index.json"))
            rc = walk_entry_text(ctx, a, "conda package", path, name, INFO_FILE_MAX, &f->index);
        else if (!strcmp(name, "info/paths.json"))
            rc = walk_entry_text(ctx, a, "conda package", path, name, INFO_FILE_MAX, &f->paths);
    }
    return rc;
}

static int info_of_tar_bz2(cdm_ctx *ctx, const char *path, struct info_files *f)
{
    struct walk_file *s = NULL;
    struct archive *a = archive_read_new();
    archive_read_support_format_tar(a);
    int rc = CDM_OK;
    if (archive_read_support_filter_bzip2(a) != ARCHIVE_OK)
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot read '%s': this build of cdm reads no bzip2 (as on "
                           "Windows); install the package with cdm on Linux, or install "
                           "the conda environment it went into (cdm install ENV)",
                           path);
    else if ((rc = walk_open_file(ctx, a, path, &s)) == CDM_EARCHIVE)
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot read conda package '%s': %s; is it a .tar.bz2 of conda's?", path,
                           archive_error_string(a));
    else if (!rc)
        rc = info_from_tar(ctx, path, a, f);
    archive_read_free(a);
    walk_close_file(s);
    return rc;
}

/* A .conda is a zip; a .tar.bz2 starts with bzip2's "BZh". By the bytes: the name may be a
 * download's or a cache's. */
static bool is_zip(const char *path)
{
    struct strbuf head = STRBUF_INIT;
    bool zip = fs_read_file(path, 4, &head) && head.len == 4 && !memcmp(head.buf, "PK\x03\x04", 4);
    sb_free(&head);
    return zip;
}

/* The .conda's member named <prefix>*.tar.zst (at the zip's top): fn reads its data. */
static int with_member(cdm_ctx *ctx, const char *path, const char *prefix,
                       int (*fn)(cdm_ctx *ctx, const char *path, struct archive *a,
                                 const char *name, void *arg),
                       void *arg)
{
    struct zip_source *src = NULL;
    struct archive *a = zip_open(ctx, path, &src);
    if (!a)
        return cdm_error_code(ctx);
    int rc = CDM_ENOTFOUND;
    struct archive_entry *e;
    while (rc == CDM_ENOTFOUND) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            rc = zip_failed(ctx, path, a, src);
            break;
        }
        const char *name = archive_entry_pathname(e);
        if (name && !strchr(name, '/') && !strchr(name, '\\') && str_starts_with(name, prefix) &&
            str_ends_with(name, ".tar.zst"))
            rc = fn(ctx, path, a, name, arg);
    }
    zip_close(a, src);
    if (rc == CDM_ENOTFOUND)
        cdm_error_set(ctx, rc,
                      "cannot install '%s': it has no %s*.tar.zst; is it a .conda package?", path,
                      prefix);
    return rc;
}

static int info_of_member(cdm_ctx *ctx, const char *path, struct archive *a, const char *name,
                          void *arg)
{
    struct strbuf tar = STRBUF_INIT;
    int rc = walk_entry_text(ctx, a, "conda package", path, name, INFO_TAR_MAX, &tar);
    struct archive *in = rc ? NULL : archive_read_new();
    if (in) {
        archive_read_support_format_tar(in);
        if (archive_read_support_filter_zstd(in) != ARCHIVE_OK)
            rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                               "cannot read '%s': this build of cdm reads no zstd (as on "
                               "Windows); install the package with cdm on Linux, or install "
                               "the conda environment it went into (cdm install ENV)",
                               path);
        else if (archive_read_open_memory(in, tar.buf, tar.len) != ARCHIVE_OK)
            rc = cdm_error_set(ctx, CDM_EARCHIVE, "cannot read '%s' in '%s': %s", name, path,
                               archive_error_string(in));
        else
            rc = info_from_tar(ctx, path, in, arg);
        archive_read_free(in);
    }
    sb_free(&tar);
    return rc;
}

/* Copy a member out into the file at arg (a path). */
static int copy_member(cdm_ctx *ctx, const char *path, struct archive *a, const char *name,
                       void *arg)
{
    return walk_entry_copy(ctx, a, path, name, arg);
}

int conda_payload(cdm_ctx *ctx, const char *path, const char *dir, char **payload)
{
    *payload = NULL;
    if (!is_zip(path)) /* a .tar.bz2 is unpacked as it is */
        return CDM_OK;
    char *out = path_join(dir, "package.tar.zst");
    int rc = with_member(ctx, path, "pkg-", copy_member, out);
    if (rc)
        free(out);
    else
        *payload = out;
    return rc;
}

/* ---- what the package says of itself --------------------------------------------------- */

/* "cuda-version >=12.0,<13.0a0", "cuda-version 12.*", "cudatoolkit >=11.2,<12": 12, 12, 11;
 * 0 when the package names no CUDA. */
static int cuda_of_depends(const cJSON *depends)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, depends)
    {
        if (!cJSON_IsString(d))
            continue;
        const char *s = d->valuestring;
        size_t n = strcspn(s, " ");
        if ((n != strlen("cuda-version") || strncmp(s, "cuda-version", n)) &&
            (n != strlen("cudatoolkit") || strncmp(s, "cudatoolkit", n)))
            continue;
        for (const char *p = s + n; *p; p++)
            if (isdigit((unsigned char)*p))
                return atoi(p);
    }
    return 0;
}

static const char *platform_of_subdir(const char *subdir)
{
    static const char *const map[][2] = {{"linux-64", "linux-x86_64"},
                                         {"linux-aarch64", "linux-sbsa"},
                                         {"linux-ppc64le", "linux-ppc64le"},
                                         {"win-64", "windows-x86_64"}};
    for (size_t i = 0; i < CDM_ARRAY_LEN(map); i++)
        if (subdir && !strcmp(subdir, map[i][0]))
            return map[i][1];
    return NULL;
}

static int parse_index(cdm_ctx *ctx, const char *path, const struct strbuf *text,
                       struct conda_info *out)
{
    cJSON *doc = cJSON_ParseWithLength(text->buf, text->len);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "version");
    const cJSON *subdir = cJSON_GetObjectItemCaseSensitive(doc, "subdir");
    const char *platform = platform_of_subdir(cJSON_GetStringValue(subdir));
    int rc = CDM_OK;
    if (!cJSON_IsString(name) || !cJSON_IsString(version))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "refusing conda package '%s': its info/index.json has no name and "
                           "version; get the package again",
                           path);
    else if (strcmp(name->valuestring, "cudnn") && strcmp(name->valuestring, "libcudnn") &&
             strcmp(name->valuestring, "libcudnn-dev"))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot install '%s': it is the conda package '%s', not cuDNN", path,
                           name->valuestring);
    else if (!version_parse(version->valuestring, &out->version) || out->version.count != 4)
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot install '%s': its version '%s' is not cuDNN's four numbers "
                           "(such as 9.1.0.70)",
                           path, version->valuestring);
    else if (!platform)
        rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                           "cannot install '%s': its subdir '%s' is for no platform cdm knows",
                           path, cJSON_GetStringValue(subdir) ? subdir->valuestring : "?");
    else if (!(out->cuda_major = cuda_of_depends(cJSON_GetObjectItemCaseSensitive(doc, "depends"))))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot install '%s': it names no cuda-version among its "
                           "dependencies, so its CUDA major is unknown",
                           path);
    if (!rc) {
        copy_text(out->name, sizeof(out->name), name->valuestring);
        copy_text(out->platform, sizeof(out->platform), platform);
        out->windows = str_starts_with(platform, "windows");
    }
    cJSON_Delete(doc);
    return rc;
}

/* paths.json's text, or (installed, in conda-meta) the paths_data object within it. */
static int parse_paths(cdm_ctx *ctx, const char *path, const struct strbuf *text,
                       struct conda_info *out)
{
    cJSON *doc = cJSON_ParseWithLength(text->buf, text->len);
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(doc, "paths_data");
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(data ? data : doc, "paths");
    int rc = cJSON_IsArray(paths) ? CDM_OK
                                  : cdm_error_set(ctx, CDM_EARCHIVE,
                                                  "refusing conda package '%s': its "
                                                  "info/paths.json lists no paths",
                                                  path);
    const cJSON *p;
    const cJSON *list = rc ? NULL : paths;
    cJSON_ArrayForEach(p, list)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "_path"));
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "path_type"));
        const char *sha = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "sha256"));
        const cJSON *size = cJSON_GetObjectItemCaseSensitive(p, "size_in_bytes");
        bool link = type && !strcmp(type, "softlink");
        char normal[4096], hex[65];
        size_t at;
        if (name && (entry_path_check(name, normal, sizeof(normal)) || strcmp(normal, name))) {
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing conda package '%s': its info/paths.json names '%s', "
                               "which leaves the package's folder or is not a plain path; "
                               "nothing was installed",
                               path, name);
            break;
        }
        if (!name || (!link && (!sha || strlen(sha) != 64 || !cJSON_IsNumber(size)))) {
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing conda package '%s': its info/paths.json has a row "
                               "without a path, a sha256 or a size; get the package again",
                               path);
            break;
        }
        for (int i = 0; !link && i < 65; i++)
            hex[i] = (char)tolower((unsigned char)sha[i]);
        if (!listed_add(&out->files, name, link ? NULL : hex,
                        link ? 0 : (unsigned long long)size->valuedouble, &at)) {
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing conda package '%s': its info/paths.json names '%s' "
                               "twice",
                               path, name);
            break;
        }
    }
    cJSON_Delete(doc);
    return rc;
}

int conda_read_installed(cdm_ctx *ctx, const char *meta, struct conda_info *out)
{
    memset(out, 0, sizeof(*out));
    struct strbuf text = STRBUF_INIT;
    int rc = fs_read_file(meta, INFO_FILE_MAX, &text) && text.len < INFO_FILE_MAX
                 ? CDM_OK
                 : cdm_error_set(ctx, CDM_EARCHIVE,
                                 "cannot read '%s': the conda environment's record of its "
                                 "package is damaged; reinstall the package",
                                 meta);
    if (!rc)
        rc = parse_index(ctx, meta, &text, out);
    if (!rc)
        rc = parse_paths(ctx, meta, &text, out);
    sb_free(&text);
    return rc;
}

int conda_read(cdm_ctx *ctx, const char *path, struct conda_info *out)
{
    memset(out, 0, sizeof(*out));
    struct info_files f = {STRBUF_INIT, STRBUF_INIT};
    int rc = is_zip(path) ? with_member(ctx, path, "info-", info_of_member, &f)
                          : info_of_tar_bz2(ctx, path, &f);
    if (!rc && (!f.index.len || !f.paths.len))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot install '%s': it has no info/index.json and info/paths.json; "
                           "is it a conda package of cuDNN?",
                           path);
    if (!rc)
        rc = parse_index(ctx, path, &f.index, out);
    if (!rc)
        rc = parse_paths(ctx, path, &f.paths, out);
    sb_free(&f.index);
    sb_free(&f.paths);
    return rc;
}

/* ---- after the unpacking ----------------------------------------------------------------- */

/* A row the selection takes: lib/... include/... (Library/bin/... on Windows). */
static bool selected(const char *row, const void *arg)
{
    const struct conda_info *info = arg;
    const struct entry_select *sel = conda_select(info);
    const char *rest = row;
    if (*sel->below) {
        if (!path_within(row, sel->below) || !row[strlen(sel->below)])
            return false;
        rest = row + strlen(sel->below) + 1;
    }
    for (const char *const *only = sel->only; *only; only++)
        if (path_within(rest, *only) && rest[strlen(*only)])
            return true;
    return false;
}

int conda_check_paths(cdm_ctx *ctx, const char *path, const struct conda_info *info,
                      const struct extract_result *x)
{
    const struct listed_check how = {.noun = "conda package",
                                     .file = path,
                                     .list = "info/paths.json",
                                     .prefix = info->windows ? "Library/" : "",
                                     .links = true,
                                     .expected = selected,
                                     .arg = info};
    return listed_check(ctx, &info->files, &how, x->files, x->file_count);
}

void conda_info_free(struct conda_info *info)
{
    listed_free(&info->files);
    memset(info, 0, sizeof(*info));
}
