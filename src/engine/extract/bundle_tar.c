/* An offline bundle's tar (bundle_tar.h), through libarchive over cdm's own file calls. */
/* libarchive's headers first: on Windows they bring mingw's io.h, whose inline functions
 * call what banned.h (through bundle_tar.h) bans */
#include <archive.h>
#include <archive_entry.h>

#include "bundle_tar.h"
#include "platform/fs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK (1 << 20)

/* ---- writing ------------------------------------------------------------------------- */

/*
 * The tar is written here, as ustar (POSIX.1-1988): libarchive's writers come as one table
 * (archive_write_set_format.o names them all), and in a static cdm that table brings its
 * xar writer, libxml2 and ICU. A ustar header is 512 bytes of fixed fields; the members'
 * names are cdm's own and short (checked: at most 100 bytes).
 */
#define TAR_BLOCK 512

static void octal(char *field, size_t width, unsigned long long v)
{
    snprintf(field, width, "%0*llo", (int)width - 1, v);
}

static void ustar_header(char h[TAR_BLOCK], const struct bundle_member *m, uint64_t size,
                         long long mtime)
{
    memset(h, 0, TAR_BLOCK);
    memcpy(h, m->name, strlen(m->name));            /* name (100) */
    octal(h + 100, 8, m->executable ? 0755 : 0644); /* mode */
    octal(h + 108, 8, 0);                           /* uid */
    octal(h + 116, 8, 0);                           /* gid */
    octal(h + 124, 12, size);                       /* size */
    octal(h + 136, 12, (unsigned long long)mtime);  /* mtime */
    memset(h + 148, ' ', 8);                        /* the checksum, blank while summed */
    h[156] = '0';                                   /* a regular file */
    memcpy(h + 257, "ustar", 6);                    /* magic, with its NUL */
    memcpy(h + 263, "00", 2);                       /* version */
    unsigned sum = 0;
    for (size_t i = 0; i < TAR_BLOCK; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum); /* six digits, a NUL, and the space left */
}

/* The time the members carry: SOURCE_DATE_EPOCH when set (the same inputs, the same bytes). */
static long long member_time(void)
{
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    char *end = NULL;
    long long t = epoch && *epoch ? strtoll(epoch, &end, 10) : -1;
    return end && !*end && t >= 0 ? t : (long long)time(NULL);
}

static int write_member(cdm_ctx *ctx, struct fs_file *out, const struct bundle_member *m, char *buf)
{
    if (strlen(m->name) > 100)
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' is too long a name for the bundle's tar",
                             m->name);
    struct fs_reader *r = NULL;
    uint64_t size = 0;
    int rc = fs_reader_open(ctx, m->path, &r, &size);
    if (rc)
        return rc;
    if (size > 077777777777ULL) { /* ustar's size field: 11 octal digits, 8 GiB */
        fs_reader_close(r);
        return cdm_error_set(ctx, CDM_EINVAL, "'%s' is too large for the bundle's tar (8 GiB)",
                             m->path);
    }
    ustar_header(buf, m, size, member_time());
    rc = fs_file_write(ctx, out, buf, TAR_BLOCK);
    long long n = 0;
    uint64_t done = 0;
    while (!rc && (n = fs_reader_read(ctx, r, buf, BLOCK)) > 0) {
        rc = fs_file_write(ctx, out, buf, (size_t)n);
        done += (uint64_t)n;
    }
    fs_reader_close(r);
    if (!rc && (n < 0 || done != size))
        return n < 0 ? (int)n
                     : cdm_error_set(ctx, CDM_EIO, "'%s' changed while it was put in the bundle",
                                     m->path);
    size_t pad = (TAR_BLOCK - done % TAR_BLOCK) % TAR_BLOCK;
    memset(buf, 0, TAR_BLOCK);
    return rc ? rc : fs_file_write(ctx, out, buf, pad);
}

int bundle_tar_write(cdm_ctx *ctx, const char *path, const struct bundle_member *m, size_t n)
{
    char *tmp = xasprintf("%s.cdm-writing", path);
    if (fs_kind(tmp) == FS_FILE)
        fs_remove_file(ctx, tmp); /* an earlier run's, cut short */
    struct fs_file *out = NULL;
    int rc = fs_file_create(ctx, tmp, false, &out);
    if (rc) {
        free(tmp);
        return rc;
    }
    char *buf = xmalloc(BLOCK);
    for (size_t i = 0; !rc && i < n; i++)
        rc = write_member(ctx, out, &m[i], buf);
    memset(buf, 0, 2 * TAR_BLOCK);
    if (!rc) /* the end: two blocks of zeros */
        rc = fs_file_write(ctx, out, buf, 2 * TAR_BLOCK);
    if (!rc)
        rc = fs_file_flush(ctx, out);
    int close_rc = fs_file_close(ctx, out);
    rc = rc ? rc : close_rc;
    free(buf);
    if (!rc)
        rc = fs_rename(ctx, tmp, path);
    if (rc && fs_kind(tmp) != FS_NONE) {
        struct saved_error saved = error_save(ctx);
        fs_remove_file(ctx, tmp);
        error_restore(ctx, &saved);
    }
    free(tmp);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

struct in {
    cdm_ctx *ctx;
    struct fs_reader *reader;
    char *block;
    int error;
};

static la_ssize_t in_read(struct archive *a, void *arg, const void **buf)
{
    (void)a;
    struct in *s = arg;
    long long n = fs_reader_read(s->ctx, s->reader, s->block, BLOCK);
    if (n < 0) {
        s->error = (int)n;
        return -1;
    }
    *buf = s->block;
    return (la_ssize_t)n;
}

static int bad_bundle(cdm_ctx *ctx, const char *path, const char *name, const char *why)
{
    return cdm_error_set(ctx, CDM_EARCHIVE,
                         "cannot read the bundle '%s': its member '%s' %s; make the bundle again "
                         "with 'cdm bundle'",
                         path, name, why);
}

/* The member e (one asked for) copied into dir. */
static int take_member(cdm_ctx *ctx, struct archive *a, struct archive_entry *e, const char *bundle,
                       const char *name, const char *dir, struct in *s)
{
    if (archive_entry_filetype(e) != AE_IFREG)
        return bad_bundle(ctx, bundle, name, "is not a regular file");
    if ((unsigned long long)archive_entry_size(e) > ctx->config.max_total_size)
        return bad_bundle(ctx, bundle, name, "is larger than [install] max_size");
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    char *out_path = path_join(dir, base);
    struct fs_file *f = NULL;
    int rc = fs_file_create(ctx, out_path, false, &f);
    la_ssize_t n = 0;
    while (!rc && (n = archive_read_data(a, s->block + BLOCK, BLOCK)) > 0)
        rc = fs_file_write(ctx, f, s->block + BLOCK, (size_t)n);
    if (!rc && n < 0)
        rc = s->error ? s->error
                      : bad_bundle(ctx, bundle, name, "cannot be read (damaged or cut short)");
    if (f) {
        int close_rc = fs_file_close(ctx, f);
        rc = rc ? rc : close_rc;
    }
    free(out_path);
    return rc;
}

int bundle_tar_take(cdm_ctx *ctx, const char *path, const char *const *names, size_t n,
                    const char *dir, bool *found)
{
    memset(found, 0, n * sizeof(*found));
    struct in s = {ctx, NULL, NULL, 0};
    uint64_t size = 0;
    int rc = fs_reader_open(ctx, path, &s.reader, &size);
    if (rc)
        return rc;
    s.block = xmalloc(2 * BLOCK); /* the reader's half, then the copy's */
    struct archive *a = archive_read_new();
    archive_read_support_format_tar(a);
    archive_read_support_filter_none(a);
    if (archive_read_open(a, &s, NULL, in_read, NULL) != ARCHIVE_OK)
        rc = s.error ? s.error
                     : cdm_error_set(ctx, CDM_EARCHIVE, "'%s' is no bundle (no tar): %s", path,
                                     archive_error_string(a));
    struct archive_entry *e;
    int got = ARCHIVE_EOF;
    while (!rc && (got = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        const char *name = archive_entry_pathname_utf8(e);
        for (size_t i = 0; name && !rc && i < n; i++) {
            if (strcmp(name, names[i]))
                continue;
            rc = found[i] ? bad_bundle(ctx, path, name, "comes twice")
                          : take_member(ctx, a, e, path, name, dir, &s);
            found[i] = true;
        }
    }
    if (!rc && got != ARCHIVE_EOF)
        rc = s.error ? s.error
                     : cdm_error_set(ctx, CDM_EARCHIVE,
                                     "cannot read the bundle '%s': %s; make it again with 'cdm "
                                     "bundle'",
                                     path, archive_error_string(a));
    archive_read_free(a);
    fs_reader_close(s.reader);
    free(s.block);
    return rc;
}
