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

struct window {
    uint64_t offset, size;
};

/* The member's bytes: after its 60-byte ar header (name, dates, owner, mode, size, "`\n"),
 * which is read again here and must give the size libarchive read. */
static int window_of_member(cdm_ctx *ctx, const char *path, struct archive *a, const char *name,
                            void *arg)
{
    (void)name;
    struct window *w = arg;
    la_int64_t header = archive_read_header_position(a);
    struct fs_reader *r = NULL;
    uint64_t file_size;
    char ar_header[61] = {0};
    int rc = header < 0 ? CDM_EARCHIVE : fs_reader_open(ctx, path, &r, &file_size);
    if (!rc && (fs_reader_seek(ctx, r, header, 0) != header ||
                fs_reader_read(ctx, r, ar_header, 60) != 60 || memcmp(ar_header + 58, "`\n", 2)))
        rc = CDM_EARCHIVE;
    fs_reader_close(r);
    if (rc)
        return rc == CDM_EARCHIVE ? cdm_error_set(ctx, rc,
                                                  "cannot read Debian package '%s': its "
                                                  "data.tar's header is not where it says; "
                                                  "get the package again",
                                                  path)
                                  : rc;
    ar_header[58] = '\0';
    w->offset = (uint64_t)header + 60;
    w->size = strtoull(ar_header + 48, NULL, 10);
    if (w->size == 0 || w->offset + w->size > file_size || !str_starts_with(ar_header, "data.tar"))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot read Debian package '%s': its data.tar member is empty or "
                             "longer than the file; get the package again",
                             path);
    return CDM_OK;
}

int deb_data_window(cdm_ctx *ctx, const char *path, uint64_t *offset, uint64_t *size)
{
    struct window w = {0, 0};
    int rc = with_member(ctx, path, "data.tar", window_of_member, &w);
    *offset = w.offset, *size = w.size;
    return rc;
}

/* ---- what the package says of itself ----------------------------------------------------- */

static int parse_control(cdm_ctx *ctx, const char *path, const struct strbuf *control,
                         struct syspkg *out)
{
    char arch[32];
    if (!rfc822_field(sb_str(control), "Package", out->package, sizeof(out->package)) ||
        !rfc822_field(sb_str(control), "Version", out->version_text, sizeof(out->version_text)) ||
        !rfc822_field(sb_str(control), "Architecture", arch, sizeof(arch)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing Debian package '%s': its control has no Package, "
                             "Version and Architecture; get the package again",
                             path);
    return syspkg_identify(ctx, path, out, NULL, arch);
}

/* md5sums: lines "<32 hex>  usr/lib/..." */
static int parse_md5sums(cdm_ctx *ctx, const char *path, const struct strbuf *text,
                         struct syspkg *out)
{
    int rc = CDM_OK;
    for (const char *line = text->buf; !rc && line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t hex = strcspn(line, " \n");
        size_t skip = hex + strspn(line + hex, " *");
        if (len && (skip >= len || len - skip >= 4096))
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing Debian package '%s': its md5sums has a line that is "
                               "not '<md5>  <path>'; get the package again",
                               path);
        else if (len) {
            char *name = xstrndup(line + skip, len - skip);
            rc = syspkg_add_row(ctx, path, out, name, line, hex);
            free(name);
        }
        line = end ? end + 1 : NULL;
    }
    return rc;
}

int deb_read(cdm_ctx *ctx, const char *path, struct syspkg *out)
{
    memset(out, 0, sizeof(*out));
    out->noun = "Debian package", out->list = "md5sums";
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
