/* cuDNN's library files (cudnn_lib.h). */
#include "cudnn_lib.h"
#include "header.h"
#include "platform/binfmt.h"
#include "platform/fs.h"
#include "version.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *cudnn_lib_name(bool windows, int major)
{
    return windows ? xasprintf("cudnn64_%d.dll", major) : xasprintf("libcudnn.so.%d", major);
}

char **cudnn_libs_in(cdm_ctx *ctx, const char *dir, bool windows, int major)
{
    char **names = NULL, **libs = xcalloc(1, sizeof(char *));
    size_t n = 0;
    if (fs_list_dir(ctx, dir, &names) != CDM_OK)
        return libs;
    char *suffix = xasprintf(".so.%d", major);
    for (char **p = names; *p; p++) {
        bool take = windows ? str_starts_with_icase(*p, "cudnn") && str_ends_with_icase(*p, ".dll")
                            : str_starts_with(*p, "libcudnn") && str_ends_with(*p, suffix);
        if (take) {
            libs = xrealloc(libs, (n + 2) * sizeof(char *));
            libs[n++] = xstrdup(*p);
            libs[n] = NULL;
        }
    }
    free(suffix);
    strv_free(names);
    return libs;
}

/* A DLL's FileVersion ("9.1.0.70"): NVIDIA's carry one, a wheel's or torch's copy too. */
static bool dll_file_version(const char *path, char *out, size_t size)
{
    return str_ends_with_icase(path, ".dll") && pe_file_version_at(path, out, size);
}

void cudnn_version_of_file(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    char *real = fs_realpath(path);
    const char *base = real ? path_basename(real) : "";
    const char *so = strstr(base, ".so.");
    if ((so && strchr(so + 4, '.') && copy_str(out, size, so + 4)) ||
        dll_file_version(real ? real : path, out, size)) {
        free(real);
        return;
    }
    out[0] = '\0'; /* a name too long for a version: ask the headers */
    char *dir = path_dirname(real ? real : path);
    static const char *const headers[] = {"../include/cudnn_version.h",
                                          "../../include/cudnn_version.h", "../include/cudnn.h"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(headers) && !out[0]; i++) {
        char *h = path_join(dir, headers[i]);
        struct strbuf text = STRBUF_INIT;
        int ma, mi, pa;
        if (fs_read_file(h, 16384, &text) &&
            cudnn_header_version(sb_str(&text), text.len, &ma, &mi, &pa))
            snprintf(out, size, "%d.%d.%d", ma, mi, pa);
        sb_free(&text);
        free(h);
    }
    free(dir);
    free(real);
}

/* Which sub-libraries a release opens by bare name at run time, and who opens them.
 * cuDNN 8's front (libcudnn.so.8) opens the six infer and train libraries; cuDNN 9's
 * opens graph, ops, cnn and adv, and its graph library the heuristic and engine ones.
 * Later 9.x releases add engines_tensor_ir (9.21 or 9.24: sources disagree) and ext
 * (9.24): those count only where the install names or ships them. */
static const struct sublib_row {
    int major;
    const char *base;
    const char *opener; /* "" the main library, else a sub-library's base */
    bool late;
} sublib_rows[] = {
    {8, "ops_infer", "", false},
    {8, "ops_train", "", false},
    {8, "cnn_infer", "", false},
    {8, "cnn_train", "", false},
    {8, "adv_infer", "", false},
    {8, "adv_train", "", false},
    {9, "graph", "", false},
    {9, "ops", "", false},
    {9, "cnn", "", false},
    {9, "adv", "", false},
    {9, "heuristic", "graph", false},
    {9, "engines_precompiled", "graph", false},
    {9, "engines_runtime_compiled", "graph", false},
    {9, "engines_tensor_ir", "graph", true},
    {9, "ext", "", true},
};

char *cudnn_lib_file(const char *base, int major, bool windows)
{
    if (!*base)
        return cudnn_lib_name(windows, major);
    return windows ? xasprintf("cudnn_%s64_%d.dll", base, major)
                   : xasprintf("libcudnn_%s.so.%d", base, major);
}

static bool has_base(const struct cudnn_sublibs *s, const char *file)
{
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->v[i].file, file))
            return true;
    return false;
}

static void add(struct cudnn_sublibs *s, const char *base, const char *opener, int major,
                bool windows, bool named)
{
    char *file = cudnn_lib_file(base, major, windows);
    if (has_base(s, file)) {
        for (size_t i = 0; i < s->count; i++)
            if (!strcmp(s->v[i].file, file))
                s->v[i].named = s->v[i].named || named;
        free(file);
        return;
    }
    ALLOC_GROW(s->v, s->count);
    s->v[s->count].file = file;
    s->v[s->count].opener = cudnn_lib_file(opener, major, windows);
    s->v[s->count].named = named;
    s->count++;
}

static const struct sublib_row *row_of(int major, const char *base)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(sublib_rows); i++)
        if (sublib_rows[i].major == major && !strcmp(sublib_rows[i].base, base))
            return &sublib_rows[i];
    return NULL;
}

/* Is "cudnn_" at p (ASCII, or UTF-16LE when step is 2) the start of a library name:
 * cudnn_<base> followed by ".so" (Linux) or "64_" / ".dll" (Windows)? The base goes to
 * out. */
static bool name_at(const unsigned char *p, const unsigned char *end, size_t step, bool windows,
                    char *out, size_t size)
{
    const char *prefix = "cudnn_";
    for (size_t i = 0; prefix[i]; i++, p += step)
        if (p + step > end || *p != (unsigned char)prefix[i] || (step == 2 && p[1]))
            return false;
    size_t n = 0;
    while (p + step <= end && (islower(*p) || *p == '_') && (step == 1 || !p[1]) && n + 1 < size) {
        out[n++] = (char)*p;
        p += step;
    }
    while (n && out[n - 1] == '_')
        n--;
    out[n] = '\0';
    if (!n)
        return false;
    const char *tails[] = {".so", "64_", ".dll"};
    for (size_t t = windows ? 1 : 0; t < (windows ? 3u : 1u); t++) {
        const unsigned char *q = p;
        size_t i = 0;
        for (; tails[t][i] && q + step <= end; i++, q += step)
            if (tolower(*q) != tails[t][i] || (step == 2 && q[1]))
                break;
        if (!tails[t][i])
            return true;
    }
    return false;
}

/* The sub-library names the library at path carries as text: cuDNN builds the names it
 * opens from these. */
static void names_in(const char *path, int major, bool windows, const char *opener,
                     struct cudnn_sublibs *out)
{
    FILE *f = fs_fopen_read(path);
    if (!f)
        return;
    const size_t size = 1 << 16;
    unsigned char *buf = xmalloc(size);
    size_t keep = 0, n;
    const size_t overlap = 256; /* a name cut by a block boundary is found in the next */
    while ((n = fread(buf + keep, 1, size - keep, f)) > 0) {
        const unsigned char *end = buf + keep + n;
        for (const unsigned char *p = buf; p < end; p++) {
            if (*p != 'c')
                continue;
            char base[64];
            for (size_t step = 1; step <= 2; step++)
                if (name_at(p, end, step, windows, base, sizeof(base))) {
                    const struct sublib_row *r = row_of(major, base);
                    add(out, base, r ? r->opener : opener, major, windows, true);
                }
        }
        keep = (size_t)(end - buf) > overlap ? overlap : (size_t)(end - buf);
        memmove(buf, end - keep, keep);
    }
    free(buf);
    fclose(f);
}

void cudnn_sublibs(int major, int minor, bool windows, const char *lib_dir,
                   struct cudnn_sublibs *out)
{
    (void)minor; /* the table's rows hold for a whole major; newer ones come from the files */
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < CDM_ARRAY_LEN(sublib_rows); i++)
        if (sublib_rows[i].major == major && !sublib_rows[i].late)
            add(out, sublib_rows[i].base, sublib_rows[i].opener, major, windows, false);
    if (!lib_dir)
        return;
    const char *readers[] = {"", "graph"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(readers); i++) {
        char *file = cudnn_lib_file(readers[i], major, windows);
        char *path = path_join(lib_dir, file);
        names_in(path, major, windows, readers[i], out);
        free(path);
        free(file);
    }
    /* a late sub-library that the install ships, though its libraries did not name it */
    for (size_t i = 0; i < CDM_ARRAY_LEN(sublib_rows); i++) {
        if (sublib_rows[i].major != major || !sublib_rows[i].late)
            continue;
        char *file = cudnn_lib_file(sublib_rows[i].base, major, windows);
        char *path = path_join(lib_dir, file);
        if (fs_kind(path) != FS_NONE)
            add(out, sublib_rows[i].base, sublib_rows[i].opener, major, windows, false);
        free(path);
        free(file);
    }
}

void cudnn_sublibs_free(struct cudnn_sublibs *s)
{
    for (size_t i = 0; i < s->count; i++) {
        free(s->v[i].file);
        free(s->v[i].opener);
    }
    free(s->v);
    memset(s, 0, sizeof(*s));
}

const char *cuda_lib_kind(const char *file_name)
{
    static const struct {
        const char *prefix, *kind;
    } kinds[] = {
        {"libcudnn", "cudnn"},          {"cudnn", "cudnn"},
        {"libcudart.so", "cudart"},     {"cudart64_", "cudart"},
        {"libcublasLt", "cublasLt"},    {"cublasLt64_", "cublasLt"},
        {"libcublas.so", "cublas"},     {"cublas64_", "cublas"},
        {"libnvrtc", "nvrtc"},          {"nvrtc64_", "nvrtc"},
        {"nvrtc-builtins64_", "nvrtc"},
    };
    for (size_t i = 0; i < CDM_ARRAY_LEN(kinds); i++) {
        const char *p = kinds[i].prefix, *s = file_name;
        while (*p && tolower((unsigned char)*s) == tolower((unsigned char)*p))
            p++, s++;
        if (!*p)
            return kinds[i].kind;
    }
    return NULL;
}
