/* What Debian and RPM packages of cuDNN share (syspkg.h). */
#include "syspkg.h"
#include "entry_check.h"
#include "platform/fs.h"
#include "platform/md5.h"
#include "platform/thread.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- where a file of the package goes ---------------------------------------------------- */

/* The folders of the system that hold cuDNN's files, and where they go in the install. */
static const char *const system_dirs[][2] = {
    {"usr/lib/x86_64-linux-gnu", "lib"},
    {"usr/lib/aarch64-linux-gnu", "lib"},
    {"usr/lib64", "lib"},
    {"usr/include/x86_64-linux-gnu", "include"},
    {"usr/include/aarch64-linux-gnu", "include"},
    {"usr/include", "include"},
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

static const char *syspkg_map(const char *path, bool link, char *out, size_t size)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(system_dirs); i++) {
        const char *dir = system_dirs[i][0], *to = system_dirs[i][1];
        const char *base = path_below(path, dir);
        if (!base || !*base || base[-1] != '/' || strchr(base, '/'))
            continue;
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

const struct entry_select syspkg_select = {"", NULL, NULL, syspkg_map};

/* ---- what the package says of itself ----------------------------------------------------- */

/* The CUDA major: libcudnn9-cuda-12 by its name, libcudnn8 8.9.7.29-1+cuda12.2 (Debian) or
 * release 1.cuda12.2 (RPM) by its version; 0 when none says. */
static int cuda_of(const char *package, const char *version, const char *release)
{
    const char *at = strstr(package, "-cuda-");
    if (at && isdigit((unsigned char)at[6]))
        return atoi(at + 6);
    const char *texts[] = {version, release};
    for (size_t i = 0; i < CDM_ARRAY_LEN(texts); i++) {
        for (at = texts[i]; at && (at = strstr(at, "cuda")); at += 4)
            if (isdigit((unsigned char)at[4]) && at > texts[i] && (at[-1] == '+' || at[-1] == '.'))
                return atoi(at + 4);
    }
    return 0;
}

static const char *platform_of_architecture(const char *arch)
{
    if (!strcmp(arch, "amd64") || !strcmp(arch, "x86_64"))
        return "linux-x86_64";
    if (!strcmp(arch, "arm64") || !strcmp(arch, "aarch64"))
        return "linux-sbsa";
    return NULL;
}

int syspkg_identify(cdm_ctx *ctx, const char *path, struct syspkg *p, const char *release,
                    const char *arch)
{
    char upstream[64];
    if (!str_starts_with(p->package, "libcudnn"))
        return cdm_error_set(ctx, CDM_EARCHIVE, "cannot install '%s': it is the %s '%s', not cuDNN",
                             path, p->noun, p->package);
    /* 9.1.0.70-1: the upstream version is before the revision, after an epoch */
    const char *v =
        strchr(p->version_text, ':') ? strchr(p->version_text, ':') + 1 : p->version_text;
    copy_text(upstream, sizeof(upstream), v);
    upstream[strcspn(upstream, "-+~")] = '\0';
    if (!version_parse(upstream, &p->version) || p->version.count != 4)
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install '%s': its version '%s' is not cuDNN's four numbers "
                             "(such as 9.1.0.70-1)",
                             path, p->version_text);
    const char *platform = platform_of_architecture(arch);
    if (!platform)
        return cdm_error_set(ctx, CDM_EUNSUPPORTED,
                             "cannot install '%s': its architecture '%s' is for no platform cdm "
                             "knows (amd64, x86_64, arm64, aarch64)",
                             path, arch);
    copy_text(p->platform, sizeof(p->platform), platform);
    if (!(p->cuda_major = cuda_of(p->package, p->version_text, release)))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "cannot install '%s': neither its name '%s' nor its version '%s' "
                             "says the CUDA major (as libcudnn9-cuda-12 or 8.9.7.29-1+cuda12.2 "
                             "do)",
                             path, p->package, p->version_text);
    return CDM_OK;
}

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

int syspkg_add_row(cdm_ctx *ctx, const char *path, struct syspkg *p, const char *name,
                   const char *digest, size_t digest_len)
{
    char normal[4096], to[4096];
    size_t want = p->sha256 ? 64 : 32;
    if (digest_len != want || !is_hex(digest, digest_len))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing %s '%s': its %s gives '%s' a digest that is not %zu hex "
                             "digits; get the package again",
                             p->noun, path, p->list, name, want);
    if (entry_path_check(name, normal, sizeof(normal)) || strcmp(normal, name))
        return cdm_error_set(ctx, CDM_EARCHIVE,
                             "refusing %s '%s': its %s names '%s', which leaves the package's "
                             "folder or is not a plain path; nothing was installed",
                             p->noun, path, p->list, name);
    struct syspkg_row row = {xstrdup(name), ""};
    for (size_t i = 0; i < digest_len; i++)
        row.digest[i] = (char)tolower((unsigned char)digest[i]);
    p->rows = xrealloc(p->rows, (p->count + 1) * sizeof(*p->rows));
    p->rows[p->count++] = row;
    if (syspkg_map(name, false, to, sizeof(to))) {
        p->headers |= str_starts_with(to, "include/");
        p->libraries |= str_starts_with(to, "lib/") && strstr(to, ".so.") != NULL;
    }
    return CDM_OK;
}

/* ---- after the unpacking ----------------------------------------------------------------- */

/* The MD5 of a file; ctx NULL (a worker thread): no message, only the code. */
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
    return got < 0 ? (int)got : CDM_OK;
}

/* The file of x at path, or NULL. */
static const struct db_file *file_at(const struct extract_result *x, const char *path)
{
    for (size_t i = 0; i < x->file_count; i++)
        if (!strcmp(x->files[i].path, path))
            return &x->files[i];
    return NULL;
}

/* The MD5s of the files to check, made on several threads: MD5 runs at about half a
 * gigabyte a second on a core, and a cuDNN's libraries are half a gigabyte and more. */
struct md5_work {
    char **files; /* full paths */
    char (*digest)[65];
    int *rc;
    size_t count;
    atomic_size_t next;
};

static int md5_worker(void *arg)
{
    struct md5_work *w = arg;
    size_t i;
    while ((i = atomic_fetch_add(&w->next, 1)) < w->count)
        w->rc[i] = md5_of_file(NULL, w->files[i], w->digest[i]);
    return 0;
}

static void md5_all(struct md5_work *w, unsigned threads)
{
    struct thread *t[64];
    size_t started = 0;
    for (; started < threads - 1 && started < CDM_ARRAY_LEN(t) && started + 1 < w->count; started++)
        if (!(t[started] = thread_start(md5_worker, w)))
            break;
    md5_worker(w); /* this thread too; with none started, it does all */
    for (size_t i = 0; i < started; i++)
        thread_join(t[i]);
}

/* The digest of each file taken, by its row, of the list's kind: its SHA-256 was made
 * unpacking it; an MD5 is made now. digest[i] "" for a row of no file taken. */
static int digests_of(cdm_ctx *ctx, const char *path, const struct syspkg *p, const char *dest,
                      const struct extract_result *x, char (*digest)[65])
{
    struct md5_work w = {xcalloc(p->count + 1, sizeof(char *)), digest,
                         xcalloc(p->count + 1, sizeof(int)), 0, 0};
    size_t *row_of = xcalloc(p->count + 1, sizeof(*row_of));
    int rc = CDM_OK;
    for (size_t i = 0; i < p->count && !rc; i++) {
        char to[4096];
        const struct db_file *f =
            syspkg_map(p->rows[i].path, false, to, sizeof(to)) ? file_at(x, to) : NULL;
        if (!f && syspkg_map(p->rows[i].path, false, to, sizeof(to)))
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing %s '%s': its %s lists '%s', which the package does "
                               "not hold; nothing was installed",
                               p->noun, path, p->list, p->rows[i].path);
        else if (f && !f->sha256)
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing %s '%s': its %s lists '%s', which the package holds "
                               "as a link; nothing was installed",
                               p->noun, path, p->list, p->rows[i].path);
        else if (f && p->sha256)
            copy_text(digest[i], 65, f->sha256);
        else if (f) {
            row_of[w.count] = i;
            w.files[w.count++] = path_join(dest, f->path);
        }
    }
    if (!rc) {
        /* each worker writes its files' digests at their row's place */
        char(*made)[65] = xcalloc(w.count + 1, sizeof(*made));
        w.digest = made;
        md5_all(&w, config_threads(&ctx->config));
        for (size_t k = 0; k < w.count && !rc; k++) {
            copy_text(digest[row_of[k]], 65, made[k]);
            if (w.rc[k]) /* again here, for the message */
                rc = md5_of_file(ctx, w.files[k], made[k]);
        }
        free(made);
    }
    for (size_t k = 0; k < w.count; k++)
        free(w.files[k]);
    free(w.files);
    free(w.rc);
    free(row_of);
    return rc;
}

/* Every row of a file cdm takes: unpacked, with the row's digest. */
static int check_rows(cdm_ctx *ctx, const char *path, const struct syspkg *p, const char *dest,
                      const struct extract_result *x, size_t *checked)
{
    char(*digest)[65] = xcalloc(p->count + 1, sizeof(*digest));
    int rc = digests_of(ctx, path, p, dest, x, digest);
    for (size_t i = 0; i < p->count && !rc; i++) {
        const struct syspkg_row *row = &p->rows[i];
        if (!digest[i][0])
            continue; /* no file of the install: passed over */
        if (strcmp(digest[i], row->digest))
            rc = cdm_error_set(ctx, CDM_EARCHIVE,
                               "refusing %s '%s': '%s' does not match its %s (%s %s, listed "
                               "%s); the package is damaged or was changed: get it again; "
                               "nothing was installed",
                               p->noun, path, row->path, p->list, p->sha256 ? "sha256" : "md5",
                               digest[i], row->digest);
        (*checked)++;
    }
    free(digest);
    return rc;
}

/* Whether a row of the list names the file of x at to. */
static bool listed(const struct syspkg *p, const char *to)
{
    for (size_t r = 0; r < p->count; r++) {
        char row_to[4096];
        if (syspkg_map(p->rows[r].path, false, row_to, sizeof(row_to)) && !strcmp(row_to, to))
            return true;
    }
    return false;
}

int syspkg_check(cdm_ctx *ctx, const char *path, const struct syspkg *p, const char *dest,
                 const struct extract_result *x)
{
    size_t checked = 0, regular = 0;
    int rc = check_rows(ctx, path, p, dest, x, &checked);
    for (size_t i = 0; !rc && i < x->file_count; i++)
        regular += x->files[i].sha256 != NULL;
    if (rc || checked == regular)
        return rc;
    /* a file the package holds that its list does not name (or names twice) */
    for (size_t i = 0; i < x->file_count; i++)
        if (x->files[i].sha256 && !listed(p, x->files[i].path))
            return cdm_error_set(ctx, CDM_EARCHIVE,
                                 "refusing %s '%s': its '%s' is not in its %s; nothing was "
                                 "installed",
                                 p->noun, path, x->files[i].path, p->list);
    return cdm_error_set(ctx, CDM_EARCHIVE,
                         "refusing %s '%s': its %s lists a file twice; nothing was installed",
                         p->noun, path, p->list);
}

void syspkg_free(struct syspkg *p)
{
    for (size_t i = 0; i < p->count; i++)
        free(p->rows[i].path);
    free(p->rows);
    memset(p, 0, sizeof(*p));
}
