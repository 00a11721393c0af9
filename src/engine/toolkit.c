/* Finding the CUDA toolkit and its version (toolkit.h). */
#include "toolkit.h"
#include "base/util.h"
#include "platform/fs.h"
#include "platform/loader.h"
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
    } else if ((text = slurp(txt))) {
        ok = version_after(text, "CUDA Version", out->version, sizeof(out->version));
        set_source(out, xasprintf("'%s' (%s)", txt, why));
    } else {
        char *bin = path_join(dir, "bin");
        char *nvcc = path_join(bin, "nvcc");
        if (fs_kind(nvcc) != FS_NONE && (text = loader_run_capture(nvcc, "--version"))) {
            ok = version_after(text, "release", out->version, sizeof(out->version));
            set_source(out, xasprintf("'%s --version' (%s)", nvcc, why));
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

/* True when path is the store or inside it. */
static bool in_store(const char *store_root, const char *path)
{
    char *real = fs_realpath(path), *root = fs_realpath(store_root);
    bool inside = real && root && str_starts_with(real, root) &&
                  (real[strlen(root)] == '/' || real[strlen(root)] == '\\' || !real[strlen(root)]);
    free(real);
    free(root);
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
