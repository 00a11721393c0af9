/* NVIDIA's cuDNN wheels: their dist-info read, their RECORD checked (wheel.h). */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>
#include <archive_entry.h>

#include "rfc822.h"
#include "wheel.h"
#include "base/base64.h"
#include "archive_walk.h"
#include "entry_check.h"
#include "platform/fs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuDNN's dist-info files are a few KiB; anything near this is not NVIDIA's. */
#define DIST_INFO_MAX (1 << 20)

static const char *const python_markers[] = {"__init__.py", NULL};
const struct entry_select wheel_select = {"nvidia/cudnn", NULL, python_markers, NULL};

bool wheel_file_name(const char *file_name)
{
    return str_ends_with_icase(file_name, ".whl");
}

bool wheel_digest_hex(const char *b64, char out[65])
{
    struct strbuf bytes = STRBUF_INIT;
    bool ok = strlen(b64) == 43 /* 32 bytes, unpadded */ && base64url_decode(b64, &bytes) &&
              bytes.len == 32;
    for (size_t i = 0; ok && i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", (unsigned char)bytes.buf[i]);
    sb_free(&bytes);
    return ok;
}

/* "nvidia-cudnn-cu12", "nvidia_cudnn_cu12" and "Nvidia.Cudnn-CU12" are one name (PEP 503):
 * its CUDA major, or 0 when it is no cuDNN wheel's name. */
static int cuda_major_of_dist(const char *dist)
{
    char norm[64];
    size_t n = 0;
    for (const char *p = dist; *p && n + 1 < sizeof(norm); p++)
        norm[n++] = (*p == '_' || *p == '.') ? '-' : (char)tolower((unsigned char)*p);
    norm[n] = '\0';
    int major = 0, used = 0;
    if (sscanf(norm, "nvidia-cudnn-cu%d%n", &major, &used) != 1 || norm[used] || major < 9 ||
        major > 99)
        return 0;
    return major;
}

/* One field of a RECORD line (PEP 376: CSV), quoted or not, into field; the rest of the
 * line after its comma, or NULL when the line ends. */
static const char *csv_field(const char *p, const char *end, struct strbuf *field)
{
    sb_reset(field);
    if (p < end && *p == '"') {
        for (p++; p < end; p++) {
            if (*p == '"' && p + 1 < end && p[1] == '"')
                sb_addc(field, *p++);
            else if (*p == '"')
                break;
            else
                sb_addc(field, *p);
        }
        p++;
    } else {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        sb_addn(field, p, (size_t)(stop - p));
        p = stop;
    }
    return p < end && *p == ',' ? p + 1 : NULL;
}

/* One RECORD line: rows without a hash (RECORD itself, signatures) are kept out. */
static int record_line(cdm_ctx *ctx, const char *path, struct wheel_info *w, const char *line,
                       const char *end)
{
    struct strbuf name = STRBUF_INIT, hash = STRBUF_INIT, size = STRBUF_INIT;
    const char *p = csv_field(line, end, &name);
    p = p ? csv_field(p, end, &hash) : NULL;
    if (p)
        csv_field(p, end, &size);
    int rc = CDM_OK;
    char hex[65], *stop = NULL;
    unsigned long long bytes = strtoull(sb_str(&size), &stop, 10);
    if (!hash.len) {
    } else if (!str_starts_with(sb_str(&hash), "sha256=") ||
               !wheel_digest_hex(sb_str(&hash) + 7, hex) || !size.len || *stop) {
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "refusing wheel '%s': its RECORD row for '%s' is not a sha256 "
                           "digest and a size; get the wheel again from the package index",
                           path, sb_str(&name));
    } else {
        size_t at;
        const struct listed_row *first;
        /* pip appends its own INSTALLER row to a RECORD that has one (uv's, "uv"): a row
         * of the dist-info twice is no matter; two that differ for a file of the install
         * leave its bytes in doubt */
        if (!listed_add(&w->files, sb_str(&name), hex, bytes, &at) &&
            path_within(sb_str(&name), wheel_select.below) &&
            (first = &w->files.rows[at], strcmp(first->sha256, hex) || first->size != bytes))
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing wheel '%s': its RECORD names '%s' twice, with two "
                               "hashes; get the wheel again",
                               path, sb_str(&name));
    }
    sb_free(&name);
    sb_free(&hash);
    sb_free(&size);
    return rc;
}

static int record_parse(cdm_ctx *ctx, const char *path, struct wheel_info *w, const char *text,
                        size_t len)
{
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end;
        const char *cut = stop > line && stop[-1] == '\r' ? stop - 1 : stop;
        int rc = cut > line ? record_line(ctx, path, w, line, cut) : CDM_OK;
        if (rc)
            return rc;
        line = stop + 1;
    }
    return CDM_OK;
}

/* The dist-info files the wheel is read by, as found in its zip. */
struct dist_info {
    char folder[256]; /* nvidia_cudnn_cu12-9.1.0.70.dist-info */
    struct strbuf metadata, wheel, record;
};

/* Which of the dist-info files an entry is (NULL for none); a second dist-info folder is
 * refused, for no one could tell which of two describes the wheel. */
static struct strbuf *dist_info_file(cdm_ctx *ctx, const char *path, struct dist_info *d,
                                     const char *raw, int *rc)
{
    char name[4096];
    if (!raw || entry_path_check(raw, name, sizeof(name)))
        return NULL;
    char *slash = strchr(name, '/');
    if (!slash || strchr(slash + 1, '/'))
        return NULL;
    *slash = '\0';
    if (!str_ends_with(name, ".dist-info"))
        return NULL;
    if (!d->folder[0] && !copy_str(d->folder, sizeof(d->folder), name))
        return NULL;
    if (strcmp(d->folder, name)) {
        *rc = cdm_error_set(ctx, CDM_EARCHIVE,
                            "refusing wheel '%s': it holds two dist-info folders ('%s' and "
                            "'%s'); get the wheel again from the package index",
                            path, d->folder, name);
        return NULL;
    }
    const char *file = slash + 1;
    return !strcmp(file, "METADATA") ? &d->metadata
           : !strcmp(file, "WHEEL")  ? &d->wheel
           : !strcmp(file, "RECORD") ? &d->record
                                     : NULL;
}

static int read_dist_info(cdm_ctx *ctx, const char *path, const struct arriving *arriving,
                          struct dist_info *d)
{
    struct zip_source *src = NULL;
    struct archive *a = zip_open_arriving(ctx, path, arriving, true, &src);
    if (!a)
        return cdm_error_code(ctx);
    int rc = CDM_OK;
    struct archive_entry *e;
    for (;;) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            rc = zip_failed(ctx, path, a, src);
            break;
        }
        const char *raw = archive_entry_pathname(e);
        struct strbuf *into = dist_info_file(ctx, path, d, raw, &rc);
        if (rc || (into && (rc = walk_entry_text(ctx, a, "wheel", path, raw, DIST_INFO_MAX, into))))
            break;
    }
    zip_close(a, src);
    return rc;
}

/* METADATA and WHEEL: which cuDNN, which CUDA major, which platform. */
static int describe(cdm_ctx *ctx, const char *path, const struct dist_info *d, struct wheel_info *w)
{
    char version[64];
    if (!rfc822_field(sb_str(&d->metadata), "Name", w->dist, sizeof(w->dist)) ||
        !rfc822_field(sb_str(&d->metadata), "Version", version, sizeof(version)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing wheel '%s': its METADATA has no Name and Version; get "
                             "the wheel again from the package index",
                             path);
    if (!(w->cuda_major = cuda_major_of_dist(w->dist)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install wheel '%s': it is '%s', not NVIDIA's cuDNN "
                             "(nvidia-cudnn-cu12, nvidia-cudnn-cu13, ...)",
                             path, w->dist);
    if (!version_parse(version, &w->version) || w->version.count != 4)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install wheel '%s': its version '%s' is not cuDNN's four "
                             "numbers (such as 9.1.0.70)",
                             path, version);
    /* WHEEL may list several tags (manylinux_2_17_x86_64.manylinux2014_x86_64): the first
     * that names a platform cdm knows decides */
    char tag[256];
    if (!rfc822_field(sb_str(&d->wheel), "Tag", tag, sizeof(tag)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing wheel '%s': its WHEEL file has no Tag; get the wheel "
                             "again from the package index",
                             path);
    copy_text(w->tag, sizeof(w->tag), tag);
    char *platforms = strrchr(tag, '-');
    for (char *p = platforms ? platforms + 1 : tag; p && !w->platform[0];) {
        char *dot = strchr(p, '.');
        if (dot)
            *dot = '\0';
        const char *platform = wheel_platform_of_tag(p);
        if (platform)
            copy_text(w->platform, sizeof(w->platform), platform);
        p = dot ? dot + 1 : NULL;
    }
    if (!w->platform[0])
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot install wheel '%s': its tag '%s' is for no platform cdm "
                             "knows (Linux x86_64 or aarch64, Windows x86_64)",
                             path, w->tag);
    return CDM_OK;
}

int wheel_read(cdm_ctx *ctx, const char *path, const struct arriving *arriving,
               struct wheel_info *out)
{
    memset(out, 0, sizeof(*out));
    struct dist_info d = {.metadata = STRBUF_INIT, .wheel = STRBUF_INIT, .record = STRBUF_INIT};
    int rc = read_dist_info(ctx, path, arriving, &d);
    if (!rc && (!d.metadata.len || !d.record.len))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot install '%s': it has no dist-info with METADATA and RECORD; "
                           "is it a wheel of NVIDIA's cuDNN (nvidia-cudnn-cu12, ...)?",
                           path);
    if (!rc)
        rc = describe(ctx, path, &d, out);
    if (!rc)
        rc = record_parse(ctx, path, out, d.record.buf, d.record.len);
    sb_free(&d.metadata);
    sb_free(&d.wheel);
    sb_free(&d.record);
    return rc;
}

int wheel_read_installed(cdm_ctx *ctx, const char *dist_info, struct wheel_info *out)
{
    memset(out, 0, sizeof(*out));
    struct dist_info d = {.metadata = STRBUF_INIT, .wheel = STRBUF_INIT, .record = STRBUF_INIT};
    struct strbuf *const files[] = {&d.metadata, &d.wheel, &d.record};
    const char *const names[] = {"METADATA", "WHEEL", "RECORD"};
    int rc = CDM_OK;
    for (size_t i = 0; i < CDM_ARRAY_LEN(files) && !rc; i++) {
        char *path = path_join(dist_info, names[i]);
        if (!fs_read_file(path, DIST_INFO_MAX, files[i]) || files[i]->len >= DIST_INFO_MAX)
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "cannot read '%s': the wheel's dist-info is damaged; reinstall "
                               "the wheel (pip install --force-reinstall)",
                               path);
        free(path);
    }
    if (!rc)
        rc = describe(ctx, dist_info, &d, out);
    if (!rc)
        rc = record_parse(ctx, dist_info, out, d.record.buf, d.record.len);
    sb_free(&d.metadata);
    sb_free(&d.wheel);
    sb_free(&d.record);
    return rc;
}

/* The rows whose file a wheel must hold: nvidia/cudnn/'s, but Python's markers. */
static bool expected_row(const char *row, const void *arg)
{
    (void)arg;
    if (!path_within(row, wheel_select.below) || !row[strlen(wheel_select.below)])
        return false;
    for (const char *const *skip = wheel_select.skip_names; *skip; skip++)
        if (!strcmp(path_basename(row), *skip))
            return false;
    return true;
}

int wheel_check_record(cdm_ctx *ctx, const char *path, const struct wheel_info *w,
                       const struct extract_result *x)
{
    const struct listed_check how = {.noun = "wheel",
                                     .file = path,
                                     .list = "RECORD",
                                     .prefix = "nvidia/cudnn/",
                                     .links = false,
                                     .expected = expected_row};
    return listed_check(ctx, &w->files, &how, x->files, x->file_count);
}

void wheel_info_free(struct wheel_info *w)
{
    listed_free(&w->files);
    memset(w, 0, sizeof(*w));
}
