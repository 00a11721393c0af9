/*
 * cdm sbom: an install's bill of materials, as read now. Every regular file is read and
 * hashed (SHA-256, and SHA-1 for SPDX), and each must match what was recorded at install:
 * a bill is a statement about bytes, and cdm makes none about bytes it did not install
 * (verify says what changed). A link is described by the file it leads to in the install.
 * The rendering (SPDX, CycloneDX) is the front end's.
 */
#include "db.h"
#include "upstream.h"
#include "db_license.h"
#include "store.h"
#include "verify_hash.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "platform/sha1.h"
#include "platform/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The largest licence text read: NVIDIA's agreements are about 40 KB. */
#define LICENSE_TEXT_MAX (1u << 20)

/* db_files_each's reader: every recorded file and link, in path order. */
static int collect_file(void *arg, const struct db_file *f)
{
    struct cdm_sbom *s = arg;
    ALLOC_GROW(s->files, s->nfiles);
    struct cdm_sbom_file *out = &s->files[s->nfiles++];
    memset(out, 0, sizeof(*out));
    out->path = xstrdup(f->path);
    out->size = f->link_target ? 0 : f->size;
    out->link_target = f->link_target ? xstrdup(f->link_target) : NULL;
    /* the record, until the bytes read replace it (hash_regular_files) */
    if (f->sha256 && !copy_str(out->sha256, sizeof(out->sha256), f->sha256))
        out->sha256[0] = '\0'; /* no hash is that long: the file reads as changed */
    return CDM_OK;
}

static int not_as_installed(cdm_ctx *ctx, const struct cdm_sbom *s, const char *path,
                            const char *why)
{
    return cdm_error_set(ctx, CDM_EMISMATCH,
                         "cannot write a bill of materials for %s: '%s/%s' %s; a bill "
                         "vouches only for the bytes cdm installed: 'cdm verify %s' lists what "
                         "changed, 'cdm install FILE --force' with the file it came from (%s) "
                         "repairs it",
                         s->install.id, s->install.path, path, why, s->install.id,
                         s->install.archive_name);
}

/* Read every regular file on the store's threads, then hold each to its record. */
static int hash_regular_files(cdm_ctx *ctx, struct cdm_sbom *s)
{
    struct file_hash *read = xcalloc(s->nfiles ? s->nfiles : 1, sizeof(*read));
    size_t n = 0;
    for (size_t i = 0; i < s->nfiles; i++)
        if (!s->files[i].link_target)
            read[n++] = (struct file_hash){.path = path_join(s->install.path, s->files[i].path),
                                           .expected = s->files[i].size,
                                           .want_sha1 = true};
    hash_files(read, n, config_threads(&ctx->config));
    int rc = CDM_OK;
    for (size_t i = 0, r = 0; i < s->nfiles; i++) {
        struct cdm_sbom_file *f = &s->files[i];
        if (f->link_target)
            continue;
        const struct file_hash *got = &read[r++];
        if (rc)
            continue;
        if (fs_kind(got->path) != FS_FILE)
            rc = not_as_installed(ctx, s, f->path, "is no longer a regular file");
        else if (!got->done)
            rc = not_as_installed(ctx, s, f->path, "cannot be read");
        else if (got->size != f->size || strcmp(got->hex, f->sha256))
            rc = not_as_installed(ctx, s, f->path, "differs from its record (size or SHA-256)");
        COPY_STR_ARRAY(f->sha256, got->hex);
        COPY_STR_ARRAY(f->sha1, got->sha1);
    }
    for (size_t i = 0; i < n; i++)
        free(read[i].path);
    free(read);
    return rc;
}

/* The recorded regular file a link's target names, relative to the link's folder. */
static const struct cdm_sbom_file *link_leads_to(const struct cdm_sbom *s, const char *link,
                                                 const char *target)
{
    if (target[0] == '/' || strstr(target, ".."))
        return NULL; /* never recorded: entry_check keeps an install's links inside it */
    const char *slash = strrchr(link, '/');
    char *path = slash ? xasprintf("%.*s/%s", (int)(slash - link), link, target) : xstrdup(target);
    const struct cdm_sbom_file *found = NULL;
    for (size_t i = 0; i < s->nfiles && !found; i++)
        if (!strcmp(s->files[i].path, path))
            found = &s->files[i];
    free(path);
    return found && found->link_target ? link_leads_to(s, found->path, found->link_target) : found;
}

/* Each link as it is now, described by the bytes it leads to. */
static int check_links(cdm_ctx *ctx, struct cdm_sbom *s)
{
    for (size_t i = 0; i < s->nfiles; i++) {
        struct cdm_sbom_file *f = &s->files[i];
        if (!f->link_target)
            continue;
        char *path = path_join(s->install.path, f->path);
        enum link_kind kind;
        char *target = NULL;
        bool same = fs_kind(path) == FS_LINK && link_read(ctx, path, &kind, &target) == CDM_OK &&
                    kind == LINK_OURS && !strcmp(target, f->link_target);
        free(target);
        free(path);
        if (!same)
            return not_as_installed(ctx, s, f->path, "is no longer the link that was installed");
        const struct cdm_sbom_file *to = link_leads_to(s, f->path, f->link_target);
        if (to) {
            f->size = to->size;
            COPY_STR_ARRAY(f->sha256, to->sha256);
            COPY_STR_ARRAY(f->sha1, to->sha1);
        }
    }
    return CDM_OK;
}

/* Bytes that are not UTF-8 made '?': the text goes into JSON, which holds only UTF-8. */
static void keep_utf8(char *text)
{
    unsigned char *p = (unsigned char *)text;
    while (*p) {
        size_t len = *p < 0x80             ? 1
                     : (*p & 0xe0) == 0xc0 ? 2
                     : (*p & 0xf0) == 0xe0 ? 3
                     : (*p & 0xf8) == 0xf0 ? 4
                                           : 0;
        size_t ok = len && (len == 1 || *p >= 0xc2);
        for (size_t k = 1; ok && k < len; k++)
            ok = (p[k] & 0xc0) == 0x80;
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += len;
    }
}

/* The licence file NVIDIA ships in each form: LICENSE in an archive, License.txt in a
 * wheel's dist-info, NVIDIA_SLA_cuDNN_Support.txt in the oldest archives, copyright in a
 * Debian package's doc folder; the shallowest. */
static void find_license(cdm_ctx *ctx, struct cdm_sbom *s)
{
    static const char *const names[] = {"LICENSE", "LICENSE.txt", "License.txt",
                                        "NVIDIA_SLA_cuDNN_Support.txt", "copyright"};
    const struct cdm_sbom_file *best = NULL;
    size_t best_depth = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        const struct cdm_sbom_file *f = &s->files[i];
        const char *base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
        size_t depth = 0;
        for (const char *c = f->path; *c; c++)
            depth += *c == '/';
        for (size_t n = 0; n < CDM_ARRAY_LEN(names) && !f->link_target; n++)
            if (!strcmp(base, names[n]) && (!best || depth < best_depth))
                best = f, best_depth = depth;
    }
    if (!best)
        return;
    char *path = path_join(s->install.path, best->path);
    struct strbuf text = STRBUF_INIT;
    /* a licence that cannot be quoted (too large) is left out, the files' hashes still name it */
    if (fs_read_regular(ctx, path, LICENSE_TEXT_MAX, &text) == CDM_OK &&
        copy_str(s->license_file, sizeof(s->license_file), best->path))
        s->license_text = sb_detach(&text);
    if (s->license_text)
        keep_utf8(s->license_text);
    sb_free(&text);
    free(path);
}

static int compare_hex(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* SPDX 2.3 section 7.9: the SHA-1 of the files' SHA-1s in ascending order, concatenated. */
static void verification_code(struct cdm_sbom *s)
{
    const char **hex = xcalloc(s->nfiles ? s->nfiles : 1, sizeof(*hex));
    size_t n = 0;
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->files[i].sha1[0])
            hex[n++] = s->files[i].sha1;
    qsort(hex, n, sizeof(*hex), compare_hex);
    struct sha1 *h = sha1_new();
    for (size_t i = 0; i < n; i++)
        sha1_update(h, hex[i], strlen(hex[i]));
    sha1_finish_hex(h, s->verification_code);
    sha1_free(h);
    free(hex);
}

/* When the bill is made (SOURCE_DATE_EPOCH, the reproducible-builds convention, when set),
 * and a name for it (a UUID, version 4 in form) drawn from the install, its files and that
 * time: the same bill made twice from the same bytes at the same time is the same bill. */
static void name_the_bill(struct cdm_sbom *s)
{
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    char *end = NULL;
    long long t = epoch && *epoch ? strtoll(epoch, &end, 10) : 0;
    s->created = end && !*end && t >= 0 ? (int64_t)t : (int64_t)time(NULL);
    char *seed = xasprintf("%s %s %s %lld", s->install.id, s->install.sha256, s->verification_code,
                           (long long)s->created);
    char hex[65];
    sha256_hex_of(seed, strlen(seed), hex);
    free(seed);
    hex[12] = '4';                                                /* the version */
    hex[16] = "89ab"[strtol((char[]){hex[16], 0}, NULL, 16) & 3]; /* the variant */
    snprintf(s->uuid, sizeof(s->uuid), "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
             hex + 16, hex + 20);
}

/* The install spec names: a project's (a folder, or the nearest project for NULL), else
 * the version spec's. */
static int which_install(cdm_ctx *ctx, const char *spec, int cuda, struct cdm_sbom *s)
{
    if (spec && !fs_is_dir_followed(spec))
        return cdm_resolve(ctx, spec, cuda, &s->install);
    struct cdm_project p;
    int rc = spec ? cdm_project_open(ctx, spec, &p) : cdm_project_find(ctx, NULL, &p);
    if (rc || (rc = store_open(ctx, STORE_READ, 0)))
        return rc;
    COPY_STR_ARRAY(s->project, p.path);
    const char *id = *p.linked_id ? p.linked_id : p.pinned_id;
    if (!*id || (rc = db_install_find(ctx, id, &s->install)) == CDM_ENOTFOUND)
        return cdm_error_set(ctx, CDM_ENOTFOUND,
                             "'%s' uses no installed cuDNN (%s): link one with 'cdm link %s "
                             "VERSION', or name an install: 'cdm sbom VERSION'",
                             p.path, *id ? id : "no link, no pin", p.path);
    return rc;
}

int cdm_sbom(cdm_ctx *ctx, const char *spec, int cuda, struct cdm_sbom *out)
{
    memset(out, 0, sizeof(*out));
    int rc = which_install(ctx, spec, cuda, out);
    if (!rc && (rc = store_open(ctx, STORE_READ, 0)))
        return rc;
    if (!rc && out->install.state != CDM_INSTALL_OK)
        rc = cdm_error_set(ctx, CDM_EBUSY,
                           "cannot write a bill of materials for %s: it is %s; 'cdm gc' "
                           "finishes or clears interrupted work",
                           out->install.id, cdm_install_state_name(out->install.state));
    cdm_ctx *owner = ctx; /* the store whose index records the files: an upstream's too */
    if (!rc)
        rc = upstream_owner(ctx, &out->install, &owner);
    if (!rc)
        rc = db_files_each(owner, out->install.id, collect_file, out);
    if (!rc)
        rc = hash_regular_files(ctx, out);
    if (!rc)
        rc = check_links(ctx, out);
    if (rc) {
        cdm_sbom_free(out); /* no bill: nothing of it is handed back */
        return rc;
    }
    find_license(ctx, out);
    verification_code(out);
    name_the_bill(out);
    struct db_license accepted;
    rc = db_license_get(ctx, out->install.id, &accepted);
    if (rc == CDM_OK) {
        out->accepted = true;
        COPY_STR_ARRAY(out->accepted_how, accepted.how);
        out->accepted_at = accepted.time;
    }
    if (rc == CDM_ENOTFOUND)
        return CDM_OK;
    if (rc)
        cdm_sbom_free(out);
    return rc;
}

void cdm_sbom_free(struct cdm_sbom *s)
{
    for (size_t i = 0; i < s->nfiles; i++) {
        free(s->files[i].path);
        free(s->files[i].link_target);
    }
    free(s->files);
    free(s->license_text);
    memset(s, 0, sizeof(*s));
}
