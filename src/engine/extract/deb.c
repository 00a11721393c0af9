/* cuDNN as NVIDIA's Debian packages: control and md5sums read, files moved, md5sums
 * checked (deb.h). */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>
#include <archive_entry.h>

#include "archive_walk.h"
#include "deb.h"
#include "entry_check.h"
#include "rfc822.h"
#include "platform/fs.h"
#include "platform/md5.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* control and md5sums of a cuDNN package are a few KiB; its control.tar is as small */
#define CONTROL_FILE_MAX (1u << 20)
#define CONTROL_TAR_MAX  (16u << 20)

bool deb_file_name(const char *file_name)
{
    return str_ends_with_icase(file_name, ".deb");
}

/* ---- where a file of the package goes ---------------------------------------------------- */

/* The folders of the system that hold cuDNN's files, and where they go in the install. */
static const char *const system_dirs[][2] = {
    {"usr/lib/x86_64-linux-gnu", "lib"},
    {"usr/lib/aarch64-linux-gnu", "lib"},
    {"usr/include/x86_64-linux-gnu", "include"},
    {"usr/include/aarch64-linux-gnu", "include"},
};

/* cudnn_adv_v9.h: the length of cudnn_adv, without the _v<N> NVIDIA's packages add. */
static size_t header_stem(const char *base)
{
    size_t n = strlen(base) - strlen(".h");
    size_t digits = 0;
    while (digits < n && isdigit((unsigned char)base[n - 1 - digits]))
        digits++;
    if (digits && n > digits + 2 && !memcmp(base + n - digits - 2, "_v", 2))
        return n - digits - 2;
    return n;
}

static const char *deb_map(const char *path, bool link, char *out, size_t size)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(system_dirs); i++) {
        const char *dir = system_dirs[i][0], *to = system_dirs[i][1];
        size_t n = strlen(dir);
        if (strncmp(path, dir, n) || path[n] != '/' || strchr(path + n + 1, '/'))
            continue;
        const char *base = path + n + 1;
        if (!strcmp(to, "lib")) {
            if (!str_starts_with(base, "libcudnn"))
                return NULL;
            return snprintf(out, size, "lib/%s", base) < (int)size ? out : NULL;
        }
        /* The headers by their own names; the package's links that give them the
         * archive's names (cudnn.h -> cudnn_v9.h) are passed over, the file taking the
         * link's name. */
        if (link || !str_starts_with(base, "cudnn") || !str_ends_with(base, ".h"))
            return NULL;
        int stem = (int)header_stem(base);
        return snprintf(out, size, "include/%.*s.h", stem, base) < (int)size ? out : NULL;
    }
    return NULL;
}

const struct entry_select deb_select = {"", NULL, NULL, deb_map};

/* ---- the ar archive's members ------------------------------------------------------------ */

typedef int (*member_fn)(cdm_ctx *ctx, const char *path, struct archive *a, const char *name,
                         void *arg);

static int unreadable(cdm_ctx *ctx, const char *path, struct archive *a)
{
    return cdm_error_set(ctx, CDM_EARCHIVE, "cannot read Debian package '%s': %s; is it a .deb?",
                         path, archive_error_string(a));
}

/* The package's member named <prefix>* (control.tar.xz, data.tar.zst): fn reads it. */
static int with_member(cdm_ctx *ctx, const char *path, const char *prefix, member_fn fn, void *arg)
{
    struct walk_file *s = NULL;
    struct archive *a = archive_read_new();
    archive_read_support_format_ar(a);
    int rc = walk_open_file(ctx, a, path, &s);
    if (rc == CDM_EARCHIVE)
        rc = unreadable(ctx, path, a);
    struct archive_entry *e;
    bool found = false;
    while (!rc && !found) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            rc = unreadable(ctx, path, a);
            break;
        }
        const char *name = archive_entry_pathname(e);
        if (name && str_starts_with(name, prefix) && !strchr(name, '/')) {
            found = true;
            rc = fn(ctx, path, a, name, arg);
        }
    }
    if (!rc && !found)
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot install '%s': it has no %s*; is it a Debian package?", path,
                           prefix);
    archive_read_free(a);
    walk_close_file(s);
    return rc;
}

struct control_files {
    struct strbuf control, md5sums;
};

/* control.tar.*, read into memory: its control and md5sums. */
static int control_of_member(cdm_ctx *ctx, const char *path, struct archive *a, const char *name,
                             void *arg)
{
    struct control_files *f = arg;
    struct strbuf tar = STRBUF_INIT;
    int rc = walk_entry_text(ctx, a, "Debian package", path, name, CONTROL_TAR_MAX, &tar);
    struct archive *in = rc ? NULL : archive_read_new();
    if (in) {
        archive_read_support_format_tar(in);
        archive_read_support_filter_gzip(in);
        archive_read_support_filter_zstd(in);
        /* not ARCHIVE_OK: libarchive would run an xz program, which cdm never does */
        if (archive_read_support_filter_xz(in) != ARCHIVE_OK && str_ends_with(name, ".xz"))
            rc = cdm_error_set(ctx, CDM_EUNSUPPORTED,
                               "cannot read '%s': this build of cdm reads no xz inside a Debian "
                               "package (as on Windows); install the packages with cdm on "
                               "Linux, or install the folder they went into (cdm install /usr)",
                               path);
        else if (archive_read_open_memory(in, tar.buf, tar.len) != ARCHIVE_OK)
            rc = cdm_error_set(ctx, CDM_EARCHIVE, "cannot read '%s' in '%s': %s", name, path,
                               archive_error_string(in));
        struct archive_entry *e;
        while (!rc && archive_read_next_header(in, &e) == ARCHIVE_OK) {
            char entry[4096];
            const char *raw = archive_entry_pathname(e);
            if (!raw || entry_path_check(raw, entry, sizeof(entry)))
                continue;
            if (!strcmp(entry, "control"))
                rc = walk_entry_text(ctx, in, "Debian package", path, "control", CONTROL_FILE_MAX,
                                     &f->control);
            else if (!strcmp(entry, "md5sums"))
                rc = walk_entry_text(ctx, in, "Debian package", path, "md5sums", CONTROL_FILE_MAX,
                                     &f->md5sums);
        }
        archive_read_free(in);
    }
    sb_free(&tar);
    return rc;
}

static int copy_member(cdm_ctx *ctx, const char *path, struct archive *a, const char *name,
                       void *arg)
{
    return walk_entry_copy(ctx, a, path, name, arg);
}

int deb_payload(cdm_ctx *ctx, const char *path, const char *dir, char **payload)
{
    char *out = path_join(dir, "data.tar");
    int rc = with_member(ctx, path, "data.tar", copy_member, out);
    if (rc)
        free(out), out = NULL;
    *payload = out;
    return rc;
}

/* ---- what the package says of itself ----------------------------------------------------- */

/* The CUDA major: libcudnn9-cuda-12 by its name, libcudnn8 8.9.7.29-1+cuda12.2 by its
 * version; 0 when neither says. */
static int cuda_of(const char *package, const char *version)
{
    const char *at = strstr(package, "-cuda-");
    if (at && isdigit((unsigned char)at[6]))
        return atoi(at + 6);
    at = strstr(version, "+cuda");
    if (at && isdigit((unsigned char)at[5]))
        return atoi(at + 5);
    return 0;
}

static const char *platform_of_architecture(const char *arch)
{
    if (!strcmp(arch, "amd64"))
        return "linux-x86_64";
    if (!strcmp(arch, "arm64"))
        return "linux-sbsa";
    return NULL;
}

static int parse_control(cdm_ctx *ctx, const char *path, const struct strbuf *control,
                         struct deb_info *out)
{
    char arch[32], upstream[64];
    if (!rfc822_field(sb_str(control), "Package", out->package, sizeof(out->package)) ||
        !rfc822_field(sb_str(control), "Version", out->version_text, sizeof(out->version_text)) ||
        !rfc822_field(sb_str(control), "Architecture", arch, sizeof(arch)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing Debian package '%s': its control has no Package, "
                             "Version and Architecture; get the package again",
                             path);
    if (!str_starts_with(out->package, "libcudnn"))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install '%s': it is the Debian package '%s', not cuDNN", path,
                             out->package);
    /* 9.1.0.70-1: the upstream version is before the revision, after an epoch */
    const char *v =
        strchr(out->version_text, ':') ? strchr(out->version_text, ':') + 1 : out->version_text;
    copy_text(upstream, sizeof(upstream), v);
    upstream[strcspn(upstream, "-+~")] = '\0';
    if (!version_parse(upstream, &out->version) || out->version.count != 4)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install '%s': its version '%s' is not cuDNN's four "
                             "numbers (such as 9.1.0.70-1)",
                             path, out->version_text);
    const char *platform = platform_of_architecture(arch);
    if (!platform)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot install '%s': its architecture '%s' is for no platform "
                             "cdm knows (amd64, arm64)",
                             path, arch);
    copy_text(out->platform, sizeof(out->platform), platform);
    if (!(out->cuda_major = cuda_of(out->package, out->version_text)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install '%s': neither its name '%s' nor its version '%s' "
                             "says the CUDA major (as libcudnn9-cuda-12 or 8.9.7.29-1+cuda12.2 "
                             "do)",
                             path, out->package, out->version_text);
    return CDM_OK;
}

static bool is_md5_hex(const char *s, size_t n)
{
    if (n != 32)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* One md5sums line, "<32 hex>  usr/lib/...", into a row; what cdm takes noted. */
static int parse_md5_line(cdm_ctx *ctx, const char *path, const char *line, size_t len,
                          struct deb_info *out)
{
    char name[4096], normal[4096], to[4096];
    size_t hex = strcspn(line, " ");
    size_t skip = hex + strspn(line + hex, " *");
    if (hex > len || skip >= len || !is_md5_hex(line, hex) || len - skip >= sizeof(name))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing Debian package '%s': its md5sums has a line that is not "
                             "'<md5>  <path>'; get the package again",
                             path);
    memcpy(name, line + skip, len - skip);
    name[len - skip] = '\0';
    if (entry_path_check(name, normal, sizeof(normal)) || strcmp(normal, name))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing Debian package '%s': its md5sums names '%s', which "
                             "leaves the package's folder or is not a plain path; nothing was "
                             "installed",
                             path, name);
    struct deb_row row = {xstrdup(name), ""};
    for (size_t i = 0; i < 32; i++)
        row.md5[i] = (char)tolower((unsigned char)line[i]);
    out->rows = xrealloc(out->rows, (out->count + 1) * sizeof(*out->rows));
    out->rows[out->count++] = row;
    if (deb_map(name, false, to, sizeof(to))) {
        out->headers |= str_starts_with(to, "include/");
        out->libraries |= str_starts_with(to, "lib/") && strstr(to, ".so.") != NULL;
    }
    return CDM_OK;
}

static int parse_md5sums(cdm_ctx *ctx, const char *path, const struct strbuf *text,
                         struct deb_info *out)
{
    int rc = CDM_OK;
    for (const char *line = text->buf; !rc && line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len)
            rc = parse_md5_line(ctx, path, line, len, out);
        line = end ? end + 1 : NULL;
    }
    return rc;
}

int deb_read(cdm_ctx *ctx, const char *path, struct deb_info *out)
{
    memset(out, 0, sizeof(*out));
    struct control_files f = {STRBUF_INIT, STRBUF_INIT};
    int rc = with_member(ctx, path, "control.tar", control_of_member, &f);
    if (!rc && !f.control.len)
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot install '%s': its control.tar has no control; is it a "
                           "Debian package?",
                           path);
    if (!rc)
        rc = parse_control(ctx, path, &f.control, out);
    if (!rc)
        rc = parse_md5sums(ctx, path, &f.md5sums, out);
    if (!rc && !f.md5sums.len)
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "refusing Debian package '%s': it has no md5sums to check its files "
                           "against; get NVIDIA's package",
                           path);
    sb_free(&f.control);
    sb_free(&f.md5sums);
    return rc;
}

/* ---- after the unpacking ----------------------------------------------------------------- */

static int md5_of_file(cdm_ctx *ctx, const char *file, char out[33])
{
    struct fs_reader *r;
    uint64_t size;
    int rc = fs_reader_open(ctx, file, &r, &size);
    if (rc)
        return rc;
    struct md5 *h = md5_new();
    unsigned char *buf = xmalloc(1u << 20);
    long long got;
    while ((got = fs_reader_read(ctx, r, buf, 1u << 20)) > 0)
        md5_update(h, buf, (size_t)got);
    md5_finish_hex(h, out);
    md5_free(h);
    free(buf);
    fs_reader_close(r);
    return got < 0 ? cdm_error_code(ctx) : CDM_OK;
}

/* The file of x at path, or NULL. */
static const struct db_file *file_at(const struct extract_result *x, const char *path)
{
    for (size_t i = 0; i < x->file_count; i++)
        if (!strcmp(x->files[i].path, path))
            return &x->files[i];
    return NULL;
}

/* Every row of a file cdm takes: unpacked, with the row's MD5. */
static int check_rows(cdm_ctx *ctx, const char *path, const struct deb_info *info, const char *dest,
                      const struct extract_result *x, size_t *checked)
{
    for (size_t i = 0; i < info->count; i++) {
        char to[4096], md5[33];
        if (!deb_map(info->rows[i].path, false, to, sizeof(to)))
            continue;
        const struct db_file *f = file_at(x, to);
        if (!f || !f->sha256)
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "refusing Debian package '%s': its md5sums lists '%s', which "
                                 "the package does not hold; nothing was installed",
                                 path, info->rows[i].path);
        char *file = path_join(dest, to);
        int rc = md5_of_file(ctx, file, md5);
        free(file);
        if (rc)
            return rc;
        if (strcmp(md5, info->rows[i].md5))
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "refusing Debian package '%s': '%s' does not match its "
                                 "md5sums (md5 %s, listed %s); the package is damaged or was "
                                 "changed: get it again; nothing was installed",
                                 path, info->rows[i].path, md5, info->rows[i].md5);
        (*checked)++;
    }
    return CDM_OK;
}

int deb_check_md5sums(cdm_ctx *ctx, const char *path, const struct deb_info *info, const char *dest,
                      const struct extract_result *x)
{
    size_t checked = 0, regular = 0;
    int rc = check_rows(ctx, path, info, dest, x, &checked);
    for (size_t i = 0; !rc && i < x->file_count; i++)
        regular += x->files[i].sha256 != NULL;
    if (!rc && checked != regular) {
        /* a file the package holds that md5sums does not list (or lists twice) */
        for (size_t i = 0; i < x->file_count; i++) {
            bool listed = false;
            for (size_t r = 0; r < info->count && !listed && x->files[i].sha256; r++) {
                char to[4096];
                listed = deb_map(info->rows[r].path, false, to, sizeof(to)) &&
                         !strcmp(to, x->files[i].path);
            }
            if (x->files[i].sha256 && !listed)
                return cdm_error_set(ctx, CDM_EARCHIVE,
                                     "refusing Debian package '%s': its '%s' is not in its "
                                     "md5sums; nothing was installed",
                                     path, x->files[i].path);
        }
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "refusing Debian package '%s': its md5sums lists a file twice; "
                           "nothing was installed",
                           path);
    }
    return rc;
}

void deb_info_free(struct deb_info *info)
{
    for (size_t i = 0; i < info->count; i++)
        free(info->rows[i].path);
    free(info->rows);
    memset(info, 0, sizeof(*info));
}
