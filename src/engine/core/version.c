#include "version.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse up to four dotted numbers from s; *end gets the first unparsed character. */
static bool parse_dotted(const char *s, struct version *v, const char **end)
{
    memset(v, 0, sizeof(*v));
    const char *p = s;
    while (v->count < 4) {
        if (!isdigit((unsigned char)*p))
            return false;
        long n = 0;
        while (isdigit((unsigned char)*p)) {
            n = n * 10 + (*p++ - '0');
            if (n > 1000000)
                return false;
        }
        v->part[v->count++] = (int)n;
        if (*p != '.' || !isdigit((unsigned char)p[1]))
            break;
        p++;
    }
    *end = p;
    return true;
}

bool version_parse(const char *s, struct version *v)
{
    const char *end;
    return parse_dotted(s, v, &end) && *end == '\0';
}

int version_compare(const struct version *a, const struct version *b)
{
    int n = a->count < b->count ? a->count : b->count;
    for (int i = 0; i < n; i++)
        if (a->part[i] != b->part[i])
            return a->part[i] < b->part[i] ? -1 : 1;
    return (a->count > b->count) - (a->count < b->count);
}

bool version_has_prefix(const struct version *v, const struct version *prefix)
{
    if (prefix->count > v->count)
        return false;
    for (int i = 0; i < prefix->count; i++)
        if (v->part[i] != prefix->part[i])
            return false;
    return true;
}

bool version_format(const struct version *v, char *out, size_t size)
{
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < v->count; i++)
        sb_addf(&sb, i ? ".%d" : "%d", v->part[i]);
    bool fits = copy_str(out, size, sb_str(&sb));
    sb_free(&sb);
    return fits;
}

#define INSTALL_ID_CUDA "-cuda"

bool install_id_format(const char *version, int cuda, char *out, size_t size)
{
    int n = snprintf(out, size, "%s" INSTALL_ID_CUDA "%d", version, cuda);
    return n >= 0 && (size_t)n < size;
}

bool install_id_version(const char *id, char *out, size_t size)
{
    const char *dash = strstr(id, INSTALL_ID_CUDA);
    size_t n = dash ? (size_t)(dash - id) : strlen(id);
    bool fits = n < size;
    if (!fits)
        n = 0;
    memcpy(out, id, n);
    out[n] = '\0';
    return fits;
}

bool version_spec_parse(const char *s, struct version_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    if (!strcmp(s, "latest")) {
        spec->latest = true;
        return true;
    }
    const char *end;
    if (!parse_dotted(s, &spec->version, &end))
        return false;
    if (*end == '\0')
        return true;
    /* 8.8.0.121-cuda11, also _cuda11 as in the archive names */
    if ((*end == '-' || *end == '_') && !strncmp(end + 1, "cuda", 4)) {
        char *after;
        long cuda = strtol(end + 5, &after, 10);
        if (after != end + 5 && *after == '\0' && cuda > 0 && cuda < 100) {
            spec->cuda = (int)cuda;
            return true;
        }
    }
    return false;
}

bool version_spec_matches(const struct version_spec *spec, const struct version *v, int cuda)
{
    if (spec->cuda && spec->cuda != cuda)
        return false;
    return spec->latest || version_has_prefix(v, &spec->version);
}

bool version_pick_offer(struct version_pick *pick, const struct version *v, const char *name)
{
    int c = pick->found ? version_compare(v, &pick->version) : 1;
    if (c > 0) {
        pick->found = true;
        pick->version = *v;
        sb_reset(&pick->names);
        pick->count = 0;
    }
    if (c >= 0) {
        sb_addf(&pick->names, "%s%s", pick->count ? ", " : "", name);
        pick->count++;
    }
    return c > 0;
}

void version_pick_free(struct version_pick *pick)
{
    sb_free(&pick->names);
}

long cudnn_version_encode(int major, int minor, int patch)
{
    if (major >= 9)
        return major * 10000L + minor * 100L + patch;
    return major * 1000L + minor * 100L + patch;
}

void cudnn_version_decode(long value, int *major, int *minor, int *patch)
{
    /* Below 10000 the value uses the old rule (MAJOR*1000): 8907 is 8.9.7. */
    long unit = value < 10000 ? 1000 : 10000;
    *major = (int)(value / unit);
    *minor = (int)(value % unit / 100);
    *patch = (int)(value % 100);
}

static const char *const known_extensions[] = {".tar.xz", ".txz", ".tar.gz", ".tgz", ".zip"};

static const char *known_extension(const char *name)
{
    for (size_t i = 0; i < CDM_ARRAY_LEN(known_extensions); i++)
        if (str_ends_with_icase(name, known_extensions[i]))
            return known_extensions[i];
    return NULL;
}

bool archive_has_known_extension(const char *file_name)
{
    return known_extension(file_name) != NULL;
}

char layout_for_version(const struct version *v)
{
    static const struct version last_old = {{8, 3, 0, 0}, 3};
    static const struct version first_current = {{8, 5, 0, 0}, 3};
    struct version three = *v;
    if (three.count > 3)
        three.count = 3;
    if (version_compare(&three, &last_old) <= 0)
        return 'A';
    return version_compare(&three, &first_current) < 0 ? 'B' : 'C';
}

/* The old names spell platforms their own way: map them to the current spelling. */
static const struct {
    const char *old_name;
    char platform[sizeof(((struct archive_name *)0)->platform)];
} old_platforms[] = {
    {"linux-x64", "linux-x86_64"},       {"windows-x64", "windows-x86_64"},
    {"windows10-x64", "windows-x86_64"}, {"windows7-x64", "windows-x86_64"},
    {"linux-ppc64le", "linux-ppc64le"},  {"linux-aarch64sbsa", "linux-sbsa"},
    {"osx-x64", "osx-x86_64"},
};

/* cudnn-11.3-linux-x64-v8.2.1.32 */
static bool parse_old_style(const char *stem, struct archive_name *out)
{
    const char *p = stem + strlen("cudnn-");
    struct version cuda;
    const char *end;
    if (!parse_dotted(p, &cuda, &end) || cuda.count != 2 || *end != '-' || !cuda.part[0])
        return false; /* (no CUDA 0) */
    const char *platform = end + 1;
    const char *v = strstr(platform, "-v");
    if (!v)
        return false;
    size_t platform_len = (size_t)(v - platform);
    out->platform[0] = '\0';
    for (size_t i = 0; i < CDM_ARRAY_LEN(old_platforms); i++)
        if (strlen(old_platforms[i].old_name) == platform_len &&
            !strncmp(platform, old_platforms[i].old_name, platform_len))
            COPY_STR_ARRAY(out->platform, old_platforms[i].platform);
    if (!out->platform[0])
        return false;
    if (!parse_dotted(v + 2, &out->version, &end) || *end != '\0' || out->version.count != 4)
        return false;
    out->cuda_major = cuda.part[0];
    out->cuda_minor = cuda.part[1];
    out->layout = 'A';
    return true;
}

/* cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive, cudnn-windows-x86_64-8.8.0.121_cuda11-archive
 * (also with "-cuda11", as some copies are renamed) */
static bool parse_current_style(const char *stem, struct archive_name *out)
{
    if (!str_ends_with(stem, "-archive"))
        return false;
    const char *p = stem + strlen("cudnn-");
    /* The platform ends at the dash before the first digit. */
    const char *q = p;
    while (*q && !(q[0] == '-' && isdigit((unsigned char)q[1])))
        q++;
    if (!*q || q == p || (size_t)(q - p) >= sizeof(out->platform))
        return false;
    memcpy(out->platform, p, (size_t)(q - p));
    out->platform[q - p] = '\0';
    const char *end;
    if (!parse_dotted(q + 1, &out->version, &end) || out->version.count != 4)
        return false;
    if ((*end != '_' && *end != '-') || strncmp(end + 1, "cuda", 4))
        return false;
    struct version cuda;
    if (!parse_dotted(end + 5, &cuda, &end) || cuda.count > 2 || strcmp(end, "-archive") ||
        !cuda.part[0])
        return false; /* (no CUDA 0) */
    out->cuda_major = cuda.part[0];
    out->cuda_minor = cuda.count == 2 ? cuda.part[1] : -1;
    out->layout = layout_for_version(&out->version);
    if (out->layout == 'A')
        out->layout = 'B'; /* a new-style name always has the new layout */
    return true;
}

bool archive_name_parse(const char *file_name, struct archive_name *out)
{
    memset(out, 0, sizeof(*out));
    const char *ext = known_extension(file_name);
    if (!ext || strncmp(file_name, "cudnn-", 6))
        return false;
    size_t stem_len = strlen(file_name) - strlen(ext);
    if (stem_len >= sizeof(out->stem))
        return false;
    memcpy(out->stem, file_name, stem_len);
    out->stem[stem_len] = '\0';
    struct version first;
    const char *end;
    /* Old names start with the CUDA version right after "cudnn-". */
    if (parse_dotted(out->stem + 6, &first, &end) && *end == '-')
        return parse_old_style(out->stem, out);
    return parse_current_style(out->stem, out);
}

const char *wheel_platform_of_tag(const char *tag)
{
    if (!strcmp(tag, "win_amd64"))
        return "windows-x86_64";
    if (!strcmp(tag, "win_arm64"))
        return "windows-arm64";
    /* manylinux2014_x86_64, manylinux_2_27_x86_64 (aarch64 wheels are NVIDIA's server
     * builds, which its archives call sbsa) */
    if (str_starts_with(tag, "manylinux") || str_starts_with(tag, "linux_")) {
        if (str_ends_with(tag, "_x86_64"))
            return "linux-x86_64";
        if (str_ends_with(tag, "_aarch64"))
            return "linux-sbsa";
    }
    return NULL;
}

bool wheel_name_parse(const char *file_name, struct archive_name *out)
{
    memset(out, 0, sizeof(*out));
    /* {dist}-{version}[-{build}]-{python}-{abi}-{platform}.whl (PEP 427) */
    if (!str_ends_with_icase(file_name, ".whl"))
        return false;
    size_t stem_len = strlen(file_name) - 4;
    if (stem_len >= sizeof(out->stem))
        return false;
    memcpy(out->stem, file_name, stem_len);
    out->stem[stem_len] = '\0';
    char parts[256];
    memcpy(parts, out->stem, stem_len + 1);
    char *field[6];
    int n = 0;
    for (char *p = parts; p && n < 6; n++) {
        field[n] = p;
        char *dash = strchr(p, '-');
        if (dash)
            *dash = '\0';
        p = dash ? dash + 1 : NULL;
    }
    int used = 0;
    if (n < 5 || n > 6 || !str_starts_with_icase(field[0], "nvidia_cudnn_cu") ||
        sscanf(field[0] + strlen("nvidia_cudnn_cu"), "%d%n", &out->cuda_major, &used) != 1 ||
        field[0][strlen("nvidia_cudnn_cu") + used] || !version_parse(field[1], &out->version) ||
        out->version.count != 4)
        return false;
    /* a tag may be compressed: manylinux_2_17_x86_64.manylinux2014_x86_64 */
    for (char *p = field[n - 1]; p && !out->platform[0];) {
        char *dot = strchr(p, '.');
        if (dot)
            *dot = '\0';
        const char *platform = wheel_platform_of_tag(p);
        if (platform && strlen(platform) < sizeof(out->platform))
            memcpy(out->platform, platform, strlen(platform) + 1);
        p = dot ? dot + 1 : NULL;
    }
    out->cuda_minor = -1;
    out->layout = layout_for_version(&out->version);
    return out->platform[0] != '\0';
}
