/* The configuration file: INI (inifile.c), each value checked as it is read. */
#include "config.h"
#include "base/name.h"
#include "cdm.h"
#include "inifile.h"
#include "platform/fs.h"
#include "platform/thread.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_TOTAL_SIZE (16ULL << 30)
#define DEFAULT_MAX_ENTRIES    100000ULL
/* liblzma's threads for a .tar.xz of many blocks each hold a block decoded and its
 * dictionary (about 44 MiB for xz -T0's 24 MiB blocks at level 6); past the bound they are
 * fewer. 224 MiB keeps an install under 256 MiB in all. */
#define DEFAULT_THREAD_MEMORY (224ULL << 20)
#define DEFAULT_FETCH_TIMEOUT 30
/* 1 KiB a second over a minute: a line that slow would take days for one archive */
#define DEFAULT_LOW_SPEED      1024
#define DEFAULT_LOW_SPEED_TIME 60
#define DEFAULT_FETCH_RETRIES  3
#define DEFAULT_RETRY_WAIT     1
/* scanners have held a fresh tree for tens of seconds (volta-cli/volta#781) */
#define DEFAULT_WINDOWS_RETRY 60

struct parse_state {
    cdm_ctx *ctx;
    struct cdm_config *config;
    const char *path;
    char *dir; /* the file's folder: relative paths in it start there */
};

/* The error of a value, naming the file, the line and the key; stops the reading. */
static int bad_value(struct parse_state *ps, int line, const char *section, const char *name,
                     const char *value, const char *why)
{
    cdm_error_set(ps->ctx, CDM_ECONFIG, "config '%s' line %d: [%s] %s = '%s': %s", ps->path, line,
                  section, name, value, why);
    return 1;
}

/* A size: digits and an optional K, M, G or T (KiB, KB ...); NULL when it is one, else why
 * not. Zero, a sign and a value past 2^64 - 1 are refused rather than read as something else. */
static const char *parse_size(const char *s, unsigned long long *out)
{
    if (*s == '-')
        return "a size cannot be negative; give one such as 16G";
    if (*s < '0' || *s > '9')
        return "not a size; give one such as 16G";
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return "too large: at most 18446744073709551615 (15E and a little more)";
    static const char units[] = "KMGTPE";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    unsigned shift = u ? 10 * (unsigned)(u - units + 1) : 0;
    if (u) {
        end++;
        if (*end == 'i')
            end++;
        if (*end == 'B')
            end++;
    }
    if (*end)
        return "not a size; give one such as 16G (K, M, G, T, P or E)";
    if (v == 0)
        return "zero would refuse every archive; give a size such as 16G";
    if (shift && v > (~0ULL >> shift))
        return "too large: at most 18446744073709551615 (15E and a little more)";
    *out = v << shift;
    return NULL;
}

/* A whole number of at most max (seconds, a count). */
static bool parse_count(const char *s, unsigned min, unsigned max, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end != '\0' || *s == '-' || v < min || v > max)
        return false;
    *out = (unsigned)v;
    return true;
}

/* A yes or no: the words INI files commonly use for either. */
static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no",
                                                                                "off", "0"};
    for (size_t i = 0; i < CDM_ARRAY_LEN(yes); i++) {
        if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
            *out = !strcmp(s, yes[i]);
            return true;
        }
    }
    return false;
}

static bool is_absolute(const char *p)
{
    bool drive = ((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z' && p[1] == ':' &&
                  (p[2] == '/' || p[2] == '\\'));
    return p[0] == '/' || p[0] == '\\' || drive;
}

/* A path as the file gives it: '~' at its start is the home folder, ${VAR} the variable's
 * value, and a relative path starts at the file's folder. NULL with the error set. */
static char *expand_path(struct parse_state *ps, int line, const char *section, const char *name,
                         const char *value)
{
    struct strbuf sb = STRBUF_INIT;
    const char *p = value;
    char *why = NULL;
    if (p[0] == '~' && (p[1] == '\0' || p[1] == '/' || p[1] == '\\')) {
        char *home = fs_getenv("HOME");
        if (!home || !*home) {
            free(home);
            home = fs_getenv("USERPROFILE");
        }
        if (!home || !*home)
            why = xasprintf("it starts with '~' but HOME is not set");
        else
            sb_add(&sb, home);
        free(home);
        p++;
    }
    while (!why && *p) {
        if (p[0] != '$' || p[1] != '{') {
            sb_addc(&sb, *p++);
            continue;
        }
        const char *close = strchr(p + 2, '}');
        if (!close) {
            why = xasprintf("'${' has no closing '}'");
            break;
        }
        char *var = xstrndup(p + 2, (size_t)(close - p - 2));
        char *v = *var ? fs_getenv(var) : NULL;
        if (!v)
            why = xasprintf("${%s} is not set in the environment", var);
        else
            sb_add(&sb, v);
        free(v);
        free(var);
        p = close + 1;
    }
    if (why) {
        bad_value(ps, line, section, name, value, why);
        free(why);
        sb_free(&sb);
        return NULL;
    }
    char *out = sb_detach(&sb);
    if (!out)
        out = xstrdup("");
    if (*out && !is_absolute(out)) {
        char *joined = path_join(ps->dir, out);
        free(out);
        out = joined;
    }
    return out;
}

/* The words of a list ("a, b c"): each passed to take, which may refuse it (false). */
static bool each_word(const char *value, bool (*take)(const char *word, size_t n, void *arg),
                      void *arg)
{
    for (const char *p = value; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        size_t n = strcspn(p, " \t,");
        if (n && !take(p, n, arg))
            return false;
        p += n;
    }
    return true;
}

/* One source of [fetch] sources: nvidia and pypi each once, registries as many as fit. */
static bool take_source(const char *word, size_t n, void *arg)
{
    static const char *const names[] = {[FETCH_NVIDIA] = "nvidia", [FETCH_PYPI] = "pypi"};
    struct cdm_config *c = arg;
    if (c->fetch_source_count == CONFIG_MAX_SOURCES)
        return false;
    unsigned i = c->fetch_source_count;
    if (n > 6 && !strncmp(word, "oci://", 6)) {
        c->fetch_sources[i] = FETCH_OCI;
        c->fetch_oci[i] = xstrndup(word, n);
        c->fetch_source_count++;
        return true;
    }
    for (unsigned k = 0; k < CDM_ARRAY_LEN(names); k++) {
        if (strlen(names[k]) != n || strncmp(word, names[k], n))
            continue;
        for (unsigned j = 0; j < i; j++)
            if (c->fetch_sources[j] == (enum fetch_source)k)
                return false;
        c->fetch_sources[c->fetch_source_count++] = (enum fetch_source)k;
        return true;
    }
    return false;
}

static void drop_fetch_sources(struct cdm_config *c)
{
    for (unsigned i = 0; i < c->fetch_source_count; i++)
        free(c->fetch_oci[i]);
    memset(c->fetch_oci, 0, sizeof(c->fetch_oci));
    c->fetch_source_count = 0;
}

/* "nvidia, pypi, oci://host/repo": in order. */
static bool parse_fetch_sources(const char *value, struct cdm_config *c)
{
    drop_fetch_sources(c);
    return each_word(value, take_source, c) && c->fetch_source_count;
}

static bool take_registry(const char *word, size_t n, void *arg)
{
    struct cdm_config *c = arg;
    c->insecure_registries =
        xrealloc(c->insecure_registries, (c->insecure_registry_count + 2) * sizeof(char *));
    c->insecure_registries[c->insecure_registry_count++] = xstrndup(word, n);
    c->insecure_registries[c->insecure_registry_count] = NULL;
    return !strchr(c->insecure_registries[c->insecure_registry_count - 1], '/');
}

#define UNKNOWN_SETTING (-1)

/* A setting that lists folders, one per line (repeat the key, or indent continuation
 * lines): value's folder added to the NULL-terminated *list. */
static int add_folder(struct parse_state *ps, int line, const char *section, const char *name,
                      const char *value, char ***list, size_t *count)
{
    if (!*value)
        return 0;
    char *dir = expand_path(ps, line, section, name, value);
    if (!dir)
        return 1;
    *list = xrealloc(*list, (*count + 2) * sizeof(char *));
    (*list)[(*count)++] = dir;
    (*list)[*count] = NULL;
    return 0;
}

/* A setting of [fetch]: 0, 1 for a bad value (said), UNKNOWN_SETTING for no such name. */
static int on_fetch(struct parse_state *ps, const char *name, const char *value, int line)
{
    struct cdm_config *c = ps->config;
    const char *section = "fetch";
    if (!strcmp(name, "base")) {
        free(c->fetch_base);
        c->fetch_base = xstrdup(value);
    } else if (!strcmp(name, "index_url")) {
        free(c->index_url);
        c->index_url = xstrdup(value);
    } else if (!strcmp(name, "sources")) {
        if (!parse_fetch_sources(value, c))
            return bad_value(ps, line, section, name, value,
                             "give nvidia, pypi and registries (oci://REGISTRY/REPOSITORY), "
                             "in the order to try them (nvidia, pypi)");
    } else if (!strcmp(name, "insecure_registries")) {
        if (!each_word(value, take_registry, c))
            return bad_value(ps, line, section, name, value,
                             "give registries as HOST or HOST:PORT, no scheme and no path");
    } else if (!strcmp(name, "legacy_sums")) {
        char *file = expand_path(ps, line, section, name, value);
        if (!file)
            return 1;
        free(c->legacy_sums);
        c->legacy_sums = file;
    } else if (!strcmp(name, "ca_file")) {
        char *file = *value ? expand_path(ps, line, section, name, value) : NULL;
        if (*value && !file)
            return 1;
        free(c->ca_file);
        c->ca_file = file;
    } else if (!strcmp(name, "low_speed") || !strcmp(name, "low_speed_time") ||
               !strcmp(name, "max_time")) {
        bool good = !strcmp(name, "low_speed")
                        ? parse_count(value, 0, 1u << 30, &c->fetch_low_speed)
                    : !strcmp(name, "low_speed_time")
                        ? parse_count(value, 1, 3600, &c->fetch_low_speed_time)
                        : parse_count(value, 0, 7 * 24 * 3600, &c->fetch_max_time);
        if (!good)
            return bad_value(ps, line, section, name, value,
                             "give a whole number of bytes a second (low_speed, 0 for no limit) "
                             "or of seconds (low_speed_time; max_time, 0 for no limit)");
    } else if (!strcmp(name, "timeout") || !strcmp(name, "retries") ||
               !strcmp(name, "retry_wait")) {
        bool good = !strcmp(name, "timeout")   ? parse_count(value, 1, 3600, &c->fetch_timeout)
                    : !strcmp(name, "retries") ? parse_count(value, 0, 20, &c->fetch_retries)
                                               : parse_count(value, 0, 600, &c->fetch_retry_wait);
        if (!good)
            return bad_value(ps, line, section, name, value,
                             "give a whole number of seconds (timeout, retry_wait) or of tries "
                             "(retries)");
    } else {
        return UNKNOWN_SETTING;
    }
    return 0;
}

/* [store] upstream: folders separated by commas (or one a line). */
static int add_upstreams(struct parse_state *ps, int line, const char *value)
{
    struct cdm_config *c = ps->config;
    for (const char *p = value; *p;) {
        p += strspn(p, " \t,");
        size_t n = strcspn(p, ",");
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        char *one = xstrndup(p, n);
        int bad =
            n ? add_folder(ps, line, "store", "upstream", one, &c->upstreams, &c->upstream_count)
              : 0;
        free(one);
        if (bad)
            return bad;
        p += strcspn(p, ",");
    }
    return 0;
}

/* A setting of [store]: 0, 1 for a bad value (said), UNKNOWN_SETTING for no such name. */
static int on_store(struct parse_state *ps, const char *name, const char *value, int line)
{
    struct cdm_config *c = ps->config;
    const char *section = "store";
    if (!strcmp(name, "root")) {
        char *root = expand_path(ps, line, section, name, value);
        if (!root)
            return 1;
        free(c->root);
        c->root = *root ? root : NULL;
        if (!*root)
            free(root);
    } else if (!strcmp(name, "upstream")) {
        return add_upstreams(ps, line, value);
    } else if (!strcmp(name, "shared")) {
        if (strcmp(value, "read-only") && strcmp(value, "no"))
            return bad_value(ps, line, section, name, value,
                             "give read-only (a store others write, opened immutable) or no");
        c->shared_read_only = !strcmp(value, "read-only");
    } else if (!strcmp(name, "journal")) {
        if (!strcmp(value, "auto"))
            c->journal = JOURNAL_AUTO;
        else if (!strcmp(value, "wal"))
            c->journal = JOURNAL_WAL;
        else if (!strcmp(value, "rollback"))
            c->journal = JOURNAL_ROLLBACK;
        else
            return bad_value(ps, line, section, name, value,
                             "give auto (a write-ahead log, a rollback journal on a network file "
                             "system), wal or rollback");
    } else {
        return UNKNOWN_SETTING;
    }
    return 0;
}

/* A setting of [install]: 0, 1 for a bad value (said), UNKNOWN_SETTING for no such name. */
static int on_install(struct parse_state *ps, const char *name, const char *value, int line)
{
    struct cdm_config *c = ps->config;
    const char *section = "install";
    if (!strcmp(name, "sources")) {
        return add_folder(ps, line, section, name, value, &c->sources, &c->source_count);
    } else if (!strcmp(name, "threads")) {
        if (!parse_count(value, 0, 1024, &c->threads))
            return bad_value(ps, line, section, name, value,
                             "give a whole number of threads up to 1024 (0: one per core)");
    } else if (!strcmp(name, "max_size") || !strcmp(name, "max_entries") ||
               !strcmp(name, "thread_memory")) {
        unsigned long long v;
        const char *why = parse_size(value, &v);
        if (why && !strcmp(name, "thread_memory") && !strncmp(why, "zero", 4))
            why = "give a size such as 224M (threads = 1 decodes on one thread)";
        if (why)
            return bad_value(ps, line, section, name, value, why);
        if (!strcmp(name, "max_size"))
            c->max_total_size = v;
        else if (!strcmp(name, "thread_memory"))
            c->thread_memory = v;
        else
            c->max_entries = v;
    } else if (!strcmp(name, "accept_license")) {
        /* one licence is known: a name, not a yes, so that a site says which it accepted */
        if (strcmp(value, CDM_LICENSE_NVIDIA_CUDNN) && strcmp(value, "none"))
            return bad_value(ps, line, section, name, value,
                             "give " CDM_LICENSE_NVIDIA_CUDNN " (NVIDIA's cuDNN licence, "
                             "accepted for every install) or none");
        c->accept_license = strcmp(value, "none") != 0;
    } else if (!strcmp(name, "require_license")) {
        if (!parse_bool(value, &c->require_license))
            return bad_value(ps, line, section, name, value, "give true or false");
    } else {
        return UNKNOWN_SETTING;
    }
    return 0;
}

/* A setting of [scan]: 0, 1 for a bad value (said), UNKNOWN_SETTING for no such name. */
static int on_scan(struct parse_state *ps, const char *name, const char *value, int line)
{
    struct cdm_config *c = ps->config;
    const char *section = "scan";
    if (!strcmp(name, "paths")) {
        return add_folder(ps, line, section, name, value, &c->scan_paths, &c->scan_path_count);
    } else {
        return UNKNOWN_SETTING;
    }
    return 0;
}

/* A setting of [activate]: 0, 1 for a bad value (said), UNKNOWN_SETTING for no such name. */
static int on_activate(struct parse_state *ps, const char *name, const char *value, int line)
{
    struct cdm_config *c = ps->config;
    const char *section = "activate";
    if (!strcmp(name, "build_paths") || !strcmp(name, "redirect")) {
        if (!parse_bool(value, !strcmp(name, "redirect") ? &c->activate_redirect
                                                         : &c->activate_build_paths))
            return bad_value(ps, line, section, name, value, "give true or false");
    } else if (!strcmp(name, "find_toolkit")) {
        bool find;
        if (!parse_bool(value, &find))
            return bad_value(ps, line, section, name, value, "give true or false");
        c->activate_named_toolkit_only = !find;
    } else {
        return UNKNOWN_SETTING;
    }
    return 0;
}

/* A setting of [windows]: 0, 1 for a bad value (said), UNKNOWN_SETTING for no such name. */
static int on_windows(struct parse_state *ps, const char *name, const char *value, int line)
{
    struct cdm_config *c = ps->config;
    const char *section = "windows";
    if (!strcmp(name, "retry_seconds")) {
        if (!parse_count(value, 0, 3600, &c->windows_retry_seconds))
            return bad_value(ps, line, section, name, value,
                             "give a whole number of seconds up to 3600 (0: fail at once)");
    } else {
        return UNKNOWN_SETTING;
    }
    return 0;
}

/* A setting of [link]: 0, 1 for a bad value (said), UNKNOWN_SETTING for no such name. */
static int on_link(struct parse_state *ps, const char *name, const char *value, int line)
{
    struct cdm_config *c = ps->config;
    const char *section = "link";
    if (!strcmp(name, "name")) {
        const char *why = config_link_name_problem(value);
        if (why) {
            char *msg = xasprintf("%s; give a plain file name such as cuda_link", why);
            bad_value(ps, line, section, name, value, msg);
            free(msg);
            return 1;
        }
        free(c->link_name);
        c->link_name = xstrdup(value);
    } else {
        return UNKNOWN_SETTING;
    }
    return 0;
}

/* inih's handler: each section's own function, a warning for a setting none knows. */
static int on_entry(void *user, const char *section, const char *name, const char *value, int line)
{
    static const struct {
        const char *section;
        int (*on)(struct parse_state *, const char *, const char *, int);
    } sections[] = {
        {"fetch", on_fetch}, {"store", on_store},       {"install", on_install},
        {"scan", on_scan},   {"activate", on_activate}, {"windows", on_windows},
        {"link", on_link},
    };
    struct parse_state *ps = user;
    int rc = UNKNOWN_SETTING;
    for (size_t i = 0; i < CDM_ARRAY_LEN(sections) && rc == UNKNOWN_SETTING; i++)
        if (!strcmp(section, sections[i].section))
            rc = sections[i].on(ps, name, value, line);
    if (rc == UNKNOWN_SETTING) {
        cdm_warn(ps->ctx, "%s:%d: unknown setting '%s' in section [%s], ignored", ps->path, line,
                 name, section);
        rc = 0;
    }
    return rc;
}

const char *config_link_name_problem(const char *name)
{
    if (!strcmp(name, CDM_PIN_FILE))
        return "it is the pin file's name";
    return name_component_problem(name);
}

unsigned config_threads(const struct cdm_config *c)
{
    return c->threads ? c->threads : thread_cpu_count();
}

int config_load(cdm_ctx *ctx, struct cdm_config *c, const char *explicit_path)
{
    c->max_total_size = DEFAULT_MAX_TOTAL_SIZE;
    c->max_entries = DEFAULT_MAX_ENTRIES;
    c->thread_memory = DEFAULT_THREAD_MEMORY;
    c->fetch_timeout = DEFAULT_FETCH_TIMEOUT;
    c->fetch_low_speed = DEFAULT_LOW_SPEED;
    c->fetch_low_speed_time = DEFAULT_LOW_SPEED_TIME;
    c->fetch_retries = DEFAULT_FETCH_RETRIES;
    c->fetch_retry_wait = DEFAULT_RETRY_WAIT;
    c->windows_retry_seconds = DEFAULT_WINDOWS_RETRY;
    c->fetch_sources[0] = FETCH_NVIDIA;
    c->fetch_source_count = 1;
    /* the usual way to say "no config": read nothing, refuse nothing */
    if (explicit_path && (!strcmp(explicit_path, "/dev/null") || !strcmp(explicit_path, "NUL")))
        return CDM_OK;
    char *path = explicit_path ? xstrdup(explicit_path) : fs_default_config();
    FILE *f = fs_fopen_read(path);
    if (!f) {
        int rc = CDM_OK;
        if (fs_kind(path) != FS_NONE) /* a fifo or a device is never read: it could block */
            rc = cdm_error_set(ctx, CDM_ECONFIG,
                               "cannot read config '%s': it is no regular file that can be read; "
                               "make it one, or point --config/CDM_CONFIG elsewhere",
                               path);
        else if (explicit_path)
            rc = cdm_error_set(ctx, CDM_ECONFIG,
                               "cannot read config '%s': no such file; create it or drop "
                               "--config/CDM_CONFIG",
                               path);
        free(path);
        return rc;
    }
    char *abs = fs_absolute(path);
    struct parse_state ps = {ctx, c, path, path_dirname(abs)};
    free(abs);
    int bad_line = 0;
    int got = inifile_read(f, on_entry, &ps, &bad_line);
    fclose(f);
    int rc = got ? CDM_ECONFIG : CDM_OK;
    if (got == -1)
        cdm_error_set(ctx, CDM_ECONFIG,
                      "cannot parse config '%s' at line %d: expected 'name = value', "
                      "'[section]', an indented continuation line or a comment",
                      path, bad_line);
    else if (got == -2)
        cdm_error_set(ctx, CDM_ECONFIG, "cannot read config '%s'", path);
    free(ps.dir);
    c->path = path;
    return rc;
}

void config_free(struct cdm_config *c)
{
    free(c->path);
    free(c->root);
    free(c->link_name);
    free(c->fetch_base);
    free(c->index_url);
    free(c->ca_file);
    free(c->legacy_sums);
    drop_fetch_sources(c);
    strv_free(c->insecure_registries);
    strv_free(c->upstreams);
    strv_free(c->sources);
    strv_free(c->scan_paths);
    memset(c, 0, sizeof(*c));
}
