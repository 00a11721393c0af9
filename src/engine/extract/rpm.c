/* cuDNN as NVIDIA's RPM packages: the header read (rpm.h). */
/* libarchive's headers before cdm's (see archive.c). */
#include <archive.h>

#include "rpm.h"
#include "platform/fs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cuDNN package's header is some KiB (a few dozen files); this is far past any. */
#define HEADER_MAX (64u << 20)
#define INDEX_MAX  100000u
#define LEAD_SIZE  96

enum {
    TAG_NAME = 1000,
    TAG_VERSION = 1001,
    TAG_RELEASE = 1002,
    TAG_ARCH = 1022,
    TAG_FILEMODES = 1030,
    TAG_FILEDIGESTS = 1035,
    TAG_DIRINDEXES = 1116,
    TAG_BASENAMES = 1117,
    TAG_DIRNAMES = 1118,
    TAG_PAYLOADCOMPRESSOR = 1125,
    TAG_FILEDIGESTALGO = 5011,
};
enum { TYPE_INT16 = 3, TYPE_INT32 = 4, TYPE_STRING = 6, TYPE_STRING_ARRAY = 8, TYPE_I18N = 9 };
enum { ALGO_MD5 = 1, ALGO_SHA256 = 8 };

bool rpm_file_name(const char *file_name)
{
    return str_ends_with_icase(file_name, ".rpm");
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A header: its index entries and its data store, both within data. */
struct header {
    unsigned char *data; /* the index (16 bytes an entry), then the store */
    uint32_t entries;
    const unsigned char *store;
    uint32_t store_size;
};

static int read_exact(cdm_ctx *ctx, struct fs_reader *r, void *buf, size_t n)
{
    long long got = fs_reader_read(ctx, r, buf, n);
    return got == (long long)n ? CDM_OK : CDM_EARCHIVE;
}

/* The header at the reader's place (its 16-byte intro, index, store); pad: skip to the next
 * multiple of 8 after it (the signature header is padded, the main one is not). */
static int read_header(cdm_ctx *ctx, struct fs_reader *r, bool pad, struct header *h)
{
    unsigned char intro[16];
    if (read_exact(ctx, r, intro, sizeof(intro)) || memcmp(intro, "\x8e\xad\xe8\x01", 4))
        return CDM_EARCHIVE;
    h->entries = be32(intro + 8);
    h->store_size = be32(intro + 12);
    if (h->entries > INDEX_MAX || h->store_size > HEADER_MAX)
        return CDM_EARCHIVE;
    size_t size = (size_t)h->entries * 16 + h->store_size;
    h->data = xmalloc(size + 1);
    if (read_exact(ctx, r, h->data, size))
        return CDM_EARCHIVE;
    h->store = h->data + (size_t)h->entries * 16;
    unsigned char skip[8];
    size_t padding = pad ? (8 - (16 + size) % 8) % 8 : 0;
    return padding && read_exact(ctx, r, skip, padding) ? CDM_EARCHIVE : CDM_OK;
}

/* Tag's entry: its type, its count and its data's place in the store; false if absent. */
static bool find_tag(const struct header *h, uint32_t tag, uint32_t *type, uint32_t *count,
                     uint32_t *offset)
{
    for (uint32_t i = 0; i < h->entries; i++) {
        const unsigned char *e = h->data + (size_t)i * 16;
        if (be32(e) != tag)
            continue;
        *type = be32(e + 4), *offset = be32(e + 8), *count = be32(e + 12);
        return *offset < h->store_size;
    }
    return false;
}

/* The strings of a STRING, STRING_ARRAY or I18N tag, each ending within the store (*out:
 * malloc'd pointers into it); false if absent or malformed. */
static bool tag_strings(const struct header *h, uint32_t tag, const char ***out, uint32_t *count)
{
    uint32_t type, offset;
    *out = NULL;
    if (!find_tag(h, tag, &type, count, &offset) ||
        (type != TYPE_STRING && type != TYPE_STRING_ARRAY && type != TYPE_I18N) || !*count ||
        *count > h->store_size)
        return false;
    if (type == TYPE_STRING)
        *count = 1;
    const char **v = xcalloc(*count, sizeof(*v));
    uint32_t at = offset;
    for (uint32_t i = 0; i < *count; i++) {
        const void *end =
            at < h->store_size ? memchr(h->store + at, '\0', h->store_size - at) : NULL;
        if (!end) {
            free(v);
            return false;
        }
        v[i] = (const char *)h->store + at;
        at = (uint32_t)((const unsigned char *)end - h->store) + 1;
    }
    *out = v;
    return true;
}

/* The first string of a tag into out; false if absent or too long. */
static bool tag_string(const struct header *h, uint32_t tag, char *out, size_t size)
{
    const char **v;
    uint32_t n;
    bool ok = tag_strings(h, tag, &v, &n) && copy_str(out, size, v[0]);
    free(v);
    return ok;
}

/* The integers of an INT16 or INT32 tag (width bytes each) within the store: their place. */
static const unsigned char *tag_ints(const struct header *h, uint32_t tag, uint32_t width,
                                     uint32_t want)
{
    uint32_t type, count, offset;
    if (!find_tag(h, tag, &type, &count, &offset) ||
        type != (width == 2 ? TYPE_INT16 : TYPE_INT32) || count != want ||
        (uint64_t)offset + (uint64_t)count * width > h->store_size)
        return NULL;
    return h->store + offset;
}

/* Every file's path and digest (regular files have one) into rows. */
static int file_rows(cdm_ctx *ctx, const char *path, const struct header *h, struct syspkg *p)
{
    const char **bases = NULL, **dirs = NULL, **digests = NULL;
    uint32_t nbase = 0, ndir = 0, ndigest = 0;
    int rc = CDM_OK;
    const unsigned char *index = NULL;
    if (!tag_strings(h, TAG_BASENAMES, &bases, &nbase) ||
        !tag_strings(h, TAG_DIRNAMES, &dirs, &ndir) ||
        !tag_strings(h, TAG_FILEDIGESTS, &digests, &ndigest) || ndigest != nbase ||
        !(index = tag_ints(h, TAG_DIRINDEXES, 4, nbase)))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "refusing RPM package '%s': its header lists no files with their "
                           "digests; get NVIDIA's package",
                           path);
    for (uint32_t i = 0; !rc && i < nbase; i++) {
        uint32_t dir = be32(index + (size_t)i * 4);
        if (!*digests[i]) /* a folder or a link: no digest */
            continue;
        if (dir >= ndir)
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing RPM package '%s': its header is damaged (a file's "
                               "folder is not listed); get the package again",
                               path);
        char *full = rc ? NULL : xasprintf("%s%s", dirs[dir], bases[i]);
        /* the header's paths are absolute (/usr/lib64/...): the payload's, relative */
        if (full)
            rc =
                syspkg_add_row(ctx, path, p, full + (*full == '/'), digests[i], strlen(digests[i]));
        free(full);
    }
    free(bases);
    free(dirs);
    free(digests);
    return rc;
}

/* The payload's compressor, which this build must read (Windows' libarchive has no xz). */
static bool payload_readable(const struct header *h)
{
    char compressor[32];
    if (!tag_string(h, TAG_PAYLOADCOMPRESSOR, compressor, sizeof(compressor)))
        return true; /* gzip, by default */
    struct archive *a = archive_read_new();
    int r = !strcmp(compressor, "xz") || !strcmp(compressor, "lzma")
                ? archive_read_support_filter_xz(a)
            : !strcmp(compressor, "zstd")  ? archive_read_support_filter_zstd(a)
            : !strcmp(compressor, "bzip2") ? archive_read_support_filter_bzip2(a)
                                           : archive_read_support_filter_gzip(a);
    archive_read_free(a);
    return r == ARCHIVE_OK;
}

static int read_identity(cdm_ctx *ctx, const char *path, const struct header *h, struct syspkg *p)
{
    char release[64], arch[32];
    if (!tag_string(h, TAG_NAME, p->package, sizeof(p->package)) ||
        !tag_string(h, TAG_VERSION, p->version_text, sizeof(p->version_text)) ||
        !tag_string(h, TAG_RELEASE, release, sizeof(release)) ||
        !tag_string(h, TAG_ARCH, arch, sizeof(arch)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing RPM package '%s': its header has no name, version, "
                             "release and architecture; get the package again",
                             path);
    const unsigned char *algo = tag_ints(h, TAG_FILEDIGESTALGO, 4, 1);
    uint32_t digest = algo ? be32(algo) : ALGO_MD5;
    if (digest != ALGO_MD5 && digest != ALGO_SHA256)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot install '%s': its file digests are of algorithm %u, and "
                             "cdm checks SHA-256 (8) and MD5 (1)",
                             path, (unsigned)digest);
    p->sha256 = digest == ALGO_SHA256;
    if (!payload_readable(h))
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot read '%s': this build of cdm cannot read its payload's "
                             "compression (as on Windows, no xz); install the packages with "
                             "cdm on Linux, or install the folder they went into (cdm install "
                             "/usr)",
                             path);
    return syspkg_identify(ctx, path, p, release, arch);
}

int rpm_read(cdm_ctx *ctx, const char *path, struct syspkg *out)
{
    memset(out, 0, sizeof(*out));
    out->noun = "RPM package", out->list = "header's file digests";
    struct fs_reader *r = NULL;
    uint64_t size;
    unsigned char lead[LEAD_SIZE];
    struct header sig = {0}, h = {0};
    int rc = fs_reader_open(ctx, path, &r, &size);
    if (!rc && (read_exact(ctx, r, lead, sizeof(lead)) || memcmp(lead, "\xed\xab\xee\xdb", 4) ||
                read_header(ctx, r, true, &sig) || read_header(ctx, r, false, &h)))
        rc = cdm_error_set(ctx, CDM_EARCHIVE,
                           "cannot read RPM package '%s': no RPM lead and headers there, or "
                           "headers past cdm's bound of %u MiB; is it an .rpm?",
                           path, HEADER_MAX >> 20);
    if (!rc)
        rc = read_identity(ctx, path, &h, out);
    if (!rc)
        rc = file_rows(ctx, path, &h, out);
    if (r)
        fs_reader_close(r);
    free(sig.data);
    free(h.data);
    return rc;
}
