/* Finding the CUDA toolkit and its version (toolkit.h). */
#include "toolkit.h"
#include "base/util.h"
#include "platform/fs.h"
#include "platform/loader.h"
#include "platform/toolkit_host.h"
#include "version.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The first "X.Y" or "X.Y.Z" after key in text. */
static bool version_after(const char *text, const char *key, char *out, size_t size)
{
    const char *p = strstr(text, key);
    if (!p)
        return false;
    p += strlen(key);
    while (*p && !isdigit((unsigned char)*p) && *p != '\n')
        p++;
    size_t n = 0;
    while (n + 1 < size && (isdigit((unsigned char)p[n]) || p[n] == '.'))
        n++;
    if (n == 0)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    while (n && out[n - 1] == '.')
        out[--n] = '\0';
    return strchr(out, '.') != NULL;
}

/* A version file's text, malloc'd; NULL when there is none. */
static char *slurp(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    if (fs_read_file(path, 1u << 20, &sb))
        return sb_detach(&sb);
    sb_free(&sb);
    return NULL;
}

/* The major and minor of out->version; false when it has fewer than two parts. */
static bool split_version(struct toolkit_info *out)
{
    struct version v;
    if (!version_parse(out->version, &v) || v.count < 2)
        return false;
    out->major = v.part[0];
    out->minor = v.part[1];
    return true;
}

static void set_source(struct toolkit_info *t, char *source)
{
    free(t->source);
    t->source = source;
}

/* The version text of the toolkit in dir, not yet split. */
static bool probe_dir(const char *dir, const char *why, struct toolkit_info *out)
{
    char *json = path_join(dir, "version.json");
    char *txt = path_join(dir, "version.txt");
    char *text;
    bool ok = false;
    if ((text = slurp(json))) {
        const char *cuda = strstr(text, "\"cuda\"");
        ok = cuda && version_after(cuda, "\"version\"", out->version, sizeof(out->version));
        set_source(out, xasprintf("'%s' (%s)", json, why));
        out->from = "version.json";
    } else if ((text = slurp(txt))) {
        ok = version_after(text, "CUDA Version", out->version, sizeof(out->version));
        set_source(out, xasprintf("'%s' (%s)", txt, why));
        out->from = "version.txt";
    } else {
        char *bin = path_join(dir, "bin");
        char *nvcc = path_join(bin, "nvcc");
        if (fs_kind(nvcc) != FS_NONE && (text = loader_run_capture(nvcc, "--version"))) {
            ok = version_after(text, "release", out->version, sizeof(out->version));
            set_source(out, xasprintf("'%s --version' (%s)", nvcc, why));
            out->from = "nvcc";
        }
        free(nvcc);
        free(bin);
    }
    free(text);
    free(json);
    free(txt);
    return ok;
}

bool toolkit_in_dir(const char *dir, const char *why, struct toolkit_info *out)
{
    return probe_dir(dir, why, out) && split_version(out);
}

/* True when path is the store or inside it, but for its views (view.h): a view holds a
 * toolkit, which activation points CUDA_PATH at (toolkit_kept.c). */
static bool in_store(const char *store_root, const char *path)
{
    char *views = path_join(store_root, "views");
    char *real = fs_realpath(path), *root = fs_realpath(store_root);
    char *views_real = fs_realpath(views);
    bool inside = real && root && path_within(real, root) &&
                  !(views_real && path_within(real, views_real) && strcmp(real, views_real));
    free(views_real);
    free(real);
    free(root);
    free(views);
    return inside;
}

bool toolkit_find(const char *store_root, struct toolkit_info *out)
{
    static const char *const vars[] = {"CUDA_PATH", "CUDA_HOME"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(vars); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v && !in_store(store_root, v) && probe_dir(v, vars[i], out))
            return split_version(out);
    }
    char *text = loader_run_capture("nvcc", "--version");
    bool ok = text && version_after(text, "release", out->version, sizeof(out->version));
    if (ok)
        set_source(out, xstrdup("'nvcc --version' (PATH)"));
    free(text);
    return ok && split_version(out);
}

void toolkit_free(struct toolkit_info *t)
{
    free(t->source);
    memset(t, 0, sizeof(*t));
}

/* ---- every toolkit on the machine ------------------------------------------------------ */

int cdm_toolkits(cdm_ctx *ctx, struct cdm_toolkit **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    struct toolkit_place *places = NULL;
    size_t n = toolkit_host_places(&places);
    struct cdm_toolkit *v = NULL;
    size_t found = 0;
    int rc = CDM_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        char *real = fs_realpath(places[i].dir);
        bool seen = !real || fs_kind(real) != FS_DIR;
        for (size_t j = 0; j < found && !seen; j++)
            seen = !strcmp(v[j].real, real);
        struct toolkit_info info = {0};
        if (!seen && toolkit_in_dir(places[i].dir, places[i].why, &info)) {
            ALLOC_GROW(v, found);
            struct cdm_toolkit *t = &v[found++];
            memset(t, 0, sizeof(*t));
            COPY_STR_ARRAY(t->version, info.version);
            copy_text(t->source, sizeof(t->source), info.from ? info.from : "");
            if (!copy_str(t->found_by, sizeof(t->found_by), places[i].why))
                COPY_STR_ARRAY(t->found_by, "?");
            if ((rc = copy_path(ctx, t->path, sizeof(t->path), places[i].dir)) == CDM_OK)
                rc = copy_path(ctx, t->real, sizeof(t->real), real);
        }
        toolkit_free(&info);
        free(real);
    }
    toolkit_places_free(places, n);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *count = found;
    return CDM_OK;
}

/* A folder given with --toolkit: it must declare a version. */
static int toolkit_of_dir(cdm_ctx *ctx, const char *dir, struct cdm_toolkit *out)
{
    struct toolkit_info info = {0};
    char *real = fs_realpath(dir);
    int rc = CDM_OK;
    if (!real || fs_kind(real) != FS_DIR)
        rc = cdm_error_set(ctx, CDM_ENOTFOUND, "no CUDA toolkit folder '%s': no such folder", dir);
    else if (!toolkit_in_dir(real, "--toolkit", &info))
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "'%s' is not a CUDA toolkit: it has no version.json, version.txt or "
                           "bin/nvcc that gives a version; give the toolkit's top folder",
                           dir);
    if (!rc) {
        COPY_STR_ARRAY(out->version, info.version);
        copy_text(out->source, sizeof(out->source), info.from ? info.from : "");
        COPY_STR_ARRAY(out->found_by, "--toolkit");
        if (!(rc = copy_path(ctx, out->path, sizeof(out->path), dir)))
            rc = copy_path(ctx, out->real, sizeof(out->real), real);
    }
    toolkit_free(&info);
    free(real);
    return rc;
}

int toolkit_resolve(cdm_ctx *ctx, const char *spec, struct cdm_toolkit *out)
{
    memset(out, 0, sizeof(*out));
    struct version want;
    if (!version_parse(spec, &want) || strchr(spec, '/') || strchr(spec, '\\'))
        return toolkit_of_dir(ctx, spec, out);
    struct cdm_toolkit *all = NULL;
    size_t n = 0;
    int rc = cdm_toolkits(ctx, &all, &n);
    if (rc)
        return rc;
    struct strbuf names = STRBUF_INIT;
    size_t matches = 0;
    for (size_t i = 0; i < n; i++) {
        struct version v;
        if (!version_parse(all[i].version, &v) || !version_has_prefix(&v, &want))
            continue;
        if (!matches++)
            *out = all[i];
        sb_addf(&names, "%s'%s' (%s)", matches > 1 ? ", " : "", all[i].path, all[i].version);
    }
    if (!matches) {
        sb_add(&names, "");
        for (size_t i = 0; i < n; i++)
            sb_addf(&names, "%s%s", i ? ", " : "", all[i].version);
        rc = cdm_error_set(ctx, CDM_ENOTFOUND,
                           "no CUDA toolkit %s found (%s%s); install it, or give its folder: "
                           "--toolkit DIR ('cdm toolkits' lists where cdm looks)",
                           spec, n ? "found: " : "none found", sb_str(&names));
    } else if (matches > 1) {
        rc = cdm_error_set(ctx, CDM_EAMBIGUOUS,
                           "CUDA toolkit %s matches several folders: %s; give one: --toolkit DIR",
                           spec, sb_str(&names));
    }
    sb_free(&names);
    free(all);
    return rc;
}
