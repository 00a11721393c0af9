/* Python environments: site-packages, dist-info folders, METADATA and RECORD files. */
#include "pyenv.h"
#include "platform/fs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* PEP 503: lower case, every run of '-', '_' and '.' one '-'. */
static void normalize(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < size; p++) {
        if (*p == '-' || *p == '_' || *p == '.') {
            if (n && out[n - 1] == '-')
                continue;
            out[n++] = '-';
        } else {
            out[n++] = (char)tolower((unsigned char)*p);
        }
    }
    out[n] = '\0';
}

/* The names in a folder, NULL when it cannot be listed: here an unreadable folder simply
 * holds no environment, so its error goes to a context of its own, not the caller's. */
static void add_unique(char ***v, size_t *n, char *path)
{
    char *real = fs_realpath(path);
    for (size_t i = 0; real && i < *n; i++) {
        char *other = fs_realpath((*v)[i]);
        bool same = other && !strcmp(other, real);
        free(other);
        if (same) {
            free(real);
            free(path);
            return;
        }
    }
    free(real);
    *v = xrealloc(*v, (*n + 2) * sizeof(char *));
    (*v)[(*n)++] = path;
    (*v)[*n] = NULL;
}

/* prefix/Lib/site-packages and prefix/lib/python3.X/site-packages (dist-packages too). */
static void sites_of(const char *prefix, char ***v, size_t *n)
{
    const char *const direct[] = {"Lib/site-packages", "lib/python3/dist-packages"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(direct); i++) {
        char *p = path_join(prefix, direct[i]);
        if (fs_is_dir_followed(p))
            add_unique(v, n, p);
        else
            free(p);
    }
    const char *const libs[] = {"lib", "local/lib"};
    for (size_t l = 0; l < CDM_ARRAY_LEN(libs); l++) {
        char *lib = path_join(prefix, libs[l]);
        char **names = fs_is_dir_followed(lib) ? fs_list_names(lib) : NULL;
        if (names) {
            for (char **e = names; *e; e++) {
                if (!str_starts_with(*e, "python3"))
                    continue;
                const char *const kinds[] = {"site-packages", "dist-packages"};
                for (size_t k = 0; k < CDM_ARRAY_LEN(kinds); k++) {
                    char *py = path_join(lib, *e);
                    char *p = path_join(py, kinds[k]);
                    free(py);
                    if (fs_is_dir_followed(p))
                        add_unique(v, n, p);
                    else
                        free(p);
                }
            }
        }
        strv_free(names);
        free(lib);
    }
}

/* A small text file, malloc'd and NUL-terminated; NULL when unreadable. limit: bytes kept. */
static char *read_text(const char *path, size_t limit)
{
    struct strbuf sb = STRBUF_INIT;
    if (!fs_read_file(path, limit, &sb)) {
        sb_free(&sb);
        return NULL;
    }
    sb_addn(&sb, "", 0);
    return sb_detach(&sb);
}

char **py_site_packages(const char *prefix, size_t *own)
{
    char **v = xcalloc(1, sizeof(char *));
    size_t n = 0;
    sites_of(prefix, &v, &n);
    *own = n;
    char *cfg_path = path_join(prefix, "pyvenv.cfg");
    char *cfg = read_text(cfg_path, 1 << 16);
    free(cfg_path);
    char *system = cfg ? text_key_value(cfg, "include-system-site-packages", true) : NULL;
    char *home = cfg ? text_key_value(cfg, "home", true) : NULL;
    if (system && home && !strcmp(system, "true")) {
        /* home is the base interpreter's folder: <base>/bin, or <base> itself on Windows */
        const char *base_name = path_basename(home);
        char *base = !strcmp(base_name, "bin") ? path_dirname(home) : xstrdup(home);
        sites_of(base, &v, &n);
        free(base);
    }
    free(system);
    free(home);
    free(cfg);
    for (size_t i = 0; fs_host_is_windows() && i < n; i++)
        path_slashes_to(v[i], '\\'); /* Lib\site-packages, not Lib/site-packages */
    return v;
}

/* "torch-2.11.0.dist-info" -> name "torch", version "2.11.0". */
static bool parse_dist_folder(const char *folder, struct py_dist *out)
{
    if (!str_ends_with(folder, ".dist-info"))
        return false;
    const char *dash = strchr(folder, '-');
    size_t stem = strlen(folder) - strlen(".dist-info");
    if (!dash || (size_t)(dash - folder) >= stem)
        return false;
    size_t nlen = (size_t)(dash - folder), vlen = stem - nlen - 1;
    if (nlen >= sizeof(out->name) || vlen >= sizeof(out->version))
        return false;
    memcpy(out->name, folder, nlen);
    out->name[nlen] = '\0';
    memcpy(out->version, dash + 1, vlen);
    out->version[vlen] = '\0';
    return true;
}

bool py_find_dist(const char *site, const char *prefix, bool exact, struct py_dist *out)
{
    char want[128], have[128];
    normalize(prefix, want, sizeof(want));
    char **names = fs_list_names(site);
    bool found = false;
    if (names) {
        for (char **e = names; *e && !found; e++) {
            struct py_dist d;
            if (!parse_dist_folder(*e, &d))
                continue;
            normalize(d.name, have, sizeof(have));
            if (exact ? !strcmp(have, want) : str_starts_with(have, want)) {
                char *path = path_join(site, *e);
                found = copy_str(d.path, sizeof(d.path), path);
                free(path);
                if (found)
                    *out = d;
            }
        }
    }
    strv_free(names);
    return found;
}

const char *py_site_packages_shown(bool windows)
{
    return windows ? "Lib\\site-packages" : "lib/python3.X/site-packages";
}

char *py_wheel_dir_in(const char *site, bool windows)
{
    char *path = path_join(site, windows ? "nvidia/cudnn/bin" : "nvidia/cudnn/lib");
    if (windows)
        path_slashes_to(path + strlen(site), '\\');
    return path;
}

bool py_cudnn_wheel(const char *site, bool windows, char **folder, struct py_dist *dist)
{
    char *path = py_wheel_dir_in(site, windows);
    if (fs_kind(path) == FS_NONE) {
        free(path);
        *folder = NULL;
        return false;
    }
    *folder = path;
    if (!py_find_dist(site, "nvidia-cudnn-cu", false, dist))
        memset(dist, 0, sizeof(*dist));
    return true;
}

/* The Windows frameworks that keep cuDNN DLLs of their own in their package (torch's
 * wheels ship them; CTranslate2, ONNX Runtime and PaddlePaddle users copy them there, as
 * their guides say), loaded before any other folder: the folder and the distribution. */
static const struct {
    const char *folder;
    const char *dist; /* a prefix of the normalized name: onnxruntime-gpu, paddlepaddle-gpu */
    bool exact;
} framework_dlls[] = {
    {"torch\\lib", "torch", true},
    {"onnxruntime\\capi", "onnxruntime", false},
    {"ctranslate2", "ctranslate2", true},
    {"paddle\\libs", "paddlepaddle", false},
};

/* The folder holds a cudnn*.dll. */
static bool has_cudnn_dll(const char *folder)
{
    char **names = fs_is_dir_followed(folder) ? fs_list_names(folder) : NULL;
    bool found = false;
    for (char **e = names; e && *e && !found; e++)
        found = str_starts_with_icase(*e, "cudnn") && str_ends_with_icase(*e, ".dll");
    strv_free(names);
    return found;
}

/* A framework's folder of site (framework_dlls[k]) that holds a cudnn*.dll of its own. */
static bool framework_own(const char *site, size_t k, char **folder, struct py_dist *dist)
{
    char *lib = path_join(site, framework_dlls[k].folder);
    bool found = has_cudnn_dll(lib);
    if (found && py_find_dist(site, framework_dlls[k].dist, framework_dlls[k].exact, dist)) {
        *folder = lib;
        return true;
    }
    free(lib);
    return false;
}

/* conda-meta/cudnn-<version>-<build>.json: the conda package cudnn of the environment. */
static bool conda_cudnn(const char *prefix, bool windows, char **folder, struct py_dist *dist)
{
    char *meta = path_join(prefix, "conda-meta");
    char **names = fs_is_dir_followed(meta) ? fs_list_names(meta) : NULL;
    bool found = false;
    for (char **e = names; e && *e && !found; e++) {
        if (!str_starts_with(*e, "cudnn-") || !str_ends_with(*e, ".json"))
            continue;
        /* name-version-build: the version is the second field from the end */
        char *stem = xstrndup(*e, strlen(*e) - strlen(".json"));
        char *build = strrchr(stem, '-');
        if (build && build > stem + strlen("cudnn")) {
            *build = '\0';
            const char *version = strrchr(stem, '-') + 1;
            memset(dist, 0, sizeof(*dist));
            COPY_STR_ARRAY(dist->name, "cudnn");
            found = copy_str(dist->version, sizeof(dist->version), version);
            char *path = path_join(meta, *e);
            found = found && copy_str(dist->path, sizeof(dist->path), path);
            free(path);
        }
        free(stem);
    }
    strv_free(names);
    free(meta);
    if (found)
        *folder = path_join(prefix, windows ? "Library\\bin" : "lib");
    return found;
}

size_t py_dll_frameworks(const char *site, struct py_dll_framework *out, size_t max)
{
    size_t n = 0;
    for (size_t k = 0; k < sizeof(framework_dlls) / sizeof(*framework_dlls) && n < max; k++) {
        struct py_dll_framework *f = &out[n];
        memset(f, 0, sizeof(*f));
        if (!py_find_dist(site, framework_dlls[k].dist, framework_dlls[k].exact, &f->dist))
            continue;
        char *folder = path_join(site, framework_dlls[k].folder);
        f->own = has_cudnn_dll(folder);
        f->adds_wheel_dirs = k == 0;
        n += copy_str(f->folder, sizeof(f->folder), folder);
        free(folder);
    }
    return n;
}

bool py_cudnn_place_nth(const char *prefix, char *const *sites, size_t own, bool windows,
                        size_t nth, struct py_cudnn_place *out)
{
    memset(out, 0, sizeof(*out));
    size_t seen = 0;
    for (size_t k = 0; windows && k < sizeof(framework_dlls) / sizeof(*framework_dlls); k++)
        for (size_t i = 0; i < own; i++)
            if (framework_own(sites[i], k, &out->folder, &out->dist)) {
                if (seen++ == nth) {
                    out->origin = k == 0 ? PY_CUDNN_TORCH_LIB : PY_CUDNN_FRAMEWORK_DLLS;
                    return true;
                }
                free(out->folder);
                out->folder = NULL;
            }
    for (size_t i = 0; i < own; i++)
        if (py_cudnn_wheel(sites[i], windows, &out->folder, &out->dist)) {
            if (seen++ == nth) {
                out->origin = PY_CUDNN_WHEEL;
                return true;
            }
            free(out->folder);
            out->folder = NULL;
        }
    if (conda_cudnn(prefix, windows, &out->folder, &out->dist)) {
        if (seen == nth) {
            out->origin = PY_CUDNN_CONDA;
            return true;
        }
        free(out->folder);
        out->folder = NULL;
    }
    memset(out, 0, sizeof(*out));
    return false;
}

bool py_cudnn_place(const char *prefix, char *const *sites, size_t own, bool windows,
                    struct py_cudnn_place *out)
{
    return py_cudnn_place_nth(prefix, sites, own, windows, 0, out);
}

const char *py_cudnn_origin_name(enum py_cudnn_origin origin)
{
    static const char *const names[] = {
        [PY_CUDNN_TORCH_LIB] = "torch's own DLLs",
        [PY_CUDNN_WHEEL] = "the nvidia-cudnn wheel's folder",
        [PY_CUDNN_CONDA] = "the conda package cudnn's files",
        [PY_CUDNN_FRAMEWORK_DLLS] = "the framework's own copy of the DLLs",
    };
    return names[origin];
}

/* "nvidia-cudnn-cu13==9.19.0.56; platform_system == 'Linux'" (also "(>=9.1,<10)"). */
static bool parse_requirement(const char *value, struct py_requirement *out)
{
    const char *p = value;
    while (*p == ' ')
        p++;
    size_t n = 0;
    while (p[n] && (isalnum((unsigned char)p[n]) || strchr("-_.", p[n])))
        n++;
    char name[128], *raw = xstrndup(p, n);
    normalize(raw, name, sizeof(name));
    free(raw);
    if (!str_starts_with(name, "nvidia-cudnn-cu"))
        return false;
    out->cuda = atoi(name + strlen("nvidia-cudnn-cu"));
    /* the version the build names: after ==, ~=, >= or > (an upper bound alone says
     * nothing of the build: "<10.0,>=9.8" is 9.8) */
    const char *clauses = p + n;
    const char *end = clauses + strcspn(clauses, ";");
    const char *spec = NULL;
    for (const char *c = clauses; c < end && !spec; c++)
        if (*c == '=' || (*c == '>' && c[1] != '='))
            for (spec = c + 1; spec < end && !isdigit((unsigned char)*spec); spec++)
                ;
    if (!spec || spec >= end)
        return false;
    char *after;
    out->major = (int)strtol(spec, &after, 10);
    out->minor = *after == '.' ? (int)strtol(after + 1, NULL, 10) : 0;
    size_t vlen = strcspn(p, "\r\n");
    if (vlen >= sizeof(out->text))
        vlen = sizeof(out->text) - 1;
    memcpy(out->text, p, vlen);
    out->text[vlen] = '\0';
    return true;
}

bool py_dist_requirement(const struct py_dist *dist, struct py_requirement *out)
{
    char *path = path_join(dist->path, "METADATA");
    char *text = read_text(path, 1 << 20);
    free(path);
    bool found = false;
    for (const char *line = text; line && *line && !found;) {
        if (*line == '\n' || *line == '\r')
            break; /* the headers end at the first empty line; the description follows */
        const char *key = "Requires-Dist:";
        if (!strncmp(line, key, strlen(key)))
            found = parse_requirement(line + strlen(key), out);
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    if (found)
        snprintf(out->framework, sizeof(out->framework), "%s %s", dist->name, dist->version);
    return found;
}

bool py_framework_requirement(char *const *sites, struct py_requirement *out)
{
    /* The frameworks that take cuDNN from the nvidia-cudnn wheels, most used first. */
    static const char *const frameworks[] = {
        "torch",
        "onnxruntime-gpu",
        "onnxruntime",
        "tensorflow",
        "jax-cuda13-plugin",
        "jax-cuda12-plugin",
        "paddlepaddle-gpu",
    };
    memset(out, 0, sizeof(*out));
    for (size_t s = 0; sites && sites[s]; s++)
        for (size_t f = 0; f < CDM_ARRAY_LEN(frameworks); f++) {
            struct py_dist d;
            if (py_find_dist(sites[s], frameworks[f], true, &d) && py_dist_requirement(&d, out))
                return true;
        }
    return false;
}

/* The dist-info folders of site whose RECORD may list rel (same first component). */
static bool record_lists(const char *dist_path, const char *rel)
{
    char *path = path_join(dist_path, "RECORD");
    char *text = read_text(path, 16u << 20);
    free(path);
    bool listed = false;
    size_t n = strlen(rel);
    for (const char *line = text; line && *line && !listed;) {
        listed = !strncmp(line, rel, n) && line[n] == ',';
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return listed;
}

bool py_owner_of(const char *file, struct py_dist *out)
{
    char *dir = path_dirname(file);
    bool found = false;
    while (!found) {
        const char *base = path_basename(dir);
        if (!strcmp(base, "site-packages") || !strcmp(base, "dist-packages")) {
            /* file relative to the site, with '/' as RECORD writes it */
            char *rel = xstrdup(file + strlen(dir) + 1);
            for (char *p = rel; *p; p++)
                if (*p == '\\')
                    *p = '/';
            char top[128], have[128];
            size_t tn = strcspn(rel, "/");
            char *first = xstrndup(rel, tn);
            normalize(first, top, sizeof(top));
            free(first);
            char **names = fs_list_names(dir);
            for (char **e = names; e && *e && !found; e++) {
                struct py_dist d;
                if (!parse_dist_folder(*e, &d))
                    continue;
                normalize(d.name, have, sizeof(have));
                if (!str_starts_with(have, top))
                    continue;
                char *path = path_join(dir, *e);
                if (record_lists(path, rel) && copy_str(d.path, sizeof(d.path), path)) {
                    *out = d;
                    found = true;
                }
                free(path);
            }
            strv_free(names);
            free(rel);
            break;
        }
        char *up = path_dirname(dir);
        bool top = !strcmp(up, dir) || !strcmp(up, ".");
        free(dir);
        dir = up;
        if (top)
            break;
    }
    free(dir);
    return found;
}

static bool looks_like_env(const char *prefix)
{
    char *cfg = path_join(prefix, "pyvenv.cfg");
    size_t own = 0;
    bool env = fs_kind(cfg) == FS_FILE;
    free(cfg);
    if (!env) {
        char **sites = py_site_packages(prefix, &own);
        env = own > 0;
        strv_free(sites);
    }
    return env;
}

static void add_env(struct py_env **out, size_t *count, enum py_env_kind kind, const char *prefix,
                    const char *why)
{
    char *real = fs_realpath(prefix);
    if (!real)
        return;
    for (size_t i = 0; i < *count; i++) {
        char *other = fs_realpath((*out)[i].prefix);
        bool same = other && !strcmp(other, real);
        free(other);
        if (same) {
            free(real);
            return;
        }
    }
    ALLOC_GROW(*out, *count);
    struct py_env *e = &(*out)[*count];
    e->kind = kind;
    e->why = why;
    if (copy_str(e->prefix, sizeof(e->prefix), real))
        (*count)++;
    free(real);
}

void py_envs_find(const char *project, struct py_env **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    static const char *const folders[][2] = {{".venv", ".venv in the project"},
                                             {"venv", "venv in the project"}};
    for (size_t i = 0; project && i < CDM_ARRAY_LEN(folders); i++) {
        char *p = path_join(project, folders[i][0]);
        if (fs_is_dir_followed(p) && looks_like_env(p))
            add_env(out, count, PY_VENV, p, folders[i][1]);
        free(p);
    }
    char *venv = fs_getenv("VIRTUAL_ENV");
    if (venv && *venv && fs_is_dir_followed(venv))
        add_env(out, count, PY_VENV, venv, "VIRTUAL_ENV");
    free(venv);
    char *conda = fs_getenv("CONDA_PREFIX");
    if (conda && *conda && fs_is_dir_followed(conda))
        add_env(out, count, PY_CONDA, conda, "CONDA_PREFIX");
    free(conda);
}
