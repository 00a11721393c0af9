/* The configuration file: INI, read with inih. */
#include "config.h"
#include "cdm.h"
#include "platform/fs.h"

#include <ini.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_TOTAL_SIZE (16ULL << 30)
#define DEFAULT_MAX_ENTRIES    100000ULL
#define DEFAULT_FETCH_TIMEOUT  30
#define DEFAULT_FETCH_RETRIES  3
#define DEFAULT_RETRY_WAIT     1

struct parse_state {
    cdm_ctx *ctx; /* for warnings */
    struct cdm_config *config;
    const char *path;
    FILE *file;
    int line;           /* inih builds without line numbers in handlers: count them as we feed it */
    int bad_value_line; /* set when a value is malformed (inih only knows syntax errors) */
    char *bad_value;
    const char *bad_value_hint; /* what a good value looks like */
};

static bool parse_size(const char *s, unsigned long long *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return false;
    unsigned long long unit = 1;
    if (*end == 'K' || *end == 'k')
        unit = 1ULL << 10, end++;
    else if (*end == 'M' || *end == 'm')
        unit = 1ULL << 20, end++;
    else if (*end == 'G' || *end == 'g')
        unit = 1ULL << 30, end++;
    else if (*end == 'T' || *end == 't')
        unit = 1ULL << 40, end++;
    if (*end == 'i' && unit > 1)
        end++;
    if (*end == 'B' && unit > 1)
        end++;
    if (*end != '\0' || v == 0)
        return false;
    *out = v * unit;
    return true;
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

/* The [fetch] settings; false for a malformed value. */
static bool fetch_setting(struct cdm_config *c, const char *name, const char *value, bool *known)
{
    *known = true;
    if (!strcmp(name, "base")) {
        free(c->fetch_base);
        c->fetch_base = xstrdup(value);
    } else if (!strcmp(name, "ca_file")) {
        free(c->ca_file);
        c->ca_file = *value ? xstrdup(value) : NULL;
    } else if (!strcmp(name, "timeout")) {
        return parse_count(value, 1, 3600, &c->fetch_timeout);
    } else if (!strcmp(name, "retries")) {
        return parse_count(value, 0, 20, &c->fetch_retries);
    } else if (!strcmp(name, "retry_wait")) {
        return parse_count(value, 0, 600, &c->fetch_retry_wait);
    } else {
        *known = false;
    }
    return true;
}

static char *read_line(char *buf, int size, void *user)
{
    struct parse_state *ps = user;
    char *line = fgets(buf, size, ps->file);
    if (line)
        ps->line++;
    return line;
}

/* Remember the first malformed value: inih only knows syntax errors. */
static void bad_value(struct parse_state *ps, int lineno, const char *name, const char *value,
                      const char *hint)
{
    if (ps->bad_value_line)
        return;
    ps->bad_value_line = lineno;
    ps->bad_value = xasprintf("%s = %s", name, value);
    ps->bad_value_hint = hint;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
    struct parse_state *ps = user;
    int lineno = ps->line;
    struct cdm_config *c = ps->config;
    bool known = true;
    if (!strcmp(section, "fetch") && !fetch_setting(c, name, value, &known)) {
        bad_value(ps, lineno, name, value,
                  "give a whole number of seconds (timeout, retry_wait) or of tries (retries)");
    } else if (!strcmp(section, "fetch") && known) {
        /* taken by fetch_setting */
    } else if (!strcmp(section, "store") && !strcmp(name, "root")) {
        free(c->root);
        c->root = xstrdup(value);
    } else if (!strcmp(section, "install") && !strcmp(name, "sources")) {
        /* one folder per line: repeat the key, or indent continuation lines */
        if (*value) {
            c->sources = xrealloc(c->sources, (c->source_count + 2) * sizeof(char *));
            c->sources[c->source_count++] = xstrdup(value);
            c->sources[c->source_count] = NULL;
        }
    } else if (!strcmp(section, "install") &&
               (!strcmp(name, "max_size") || !strcmp(name, "max_entries"))) {
        unsigned long long v;
        if (!parse_size(value, &v)) {
            bad_value(ps, lineno, name, value, "give a size such as 16G");
            return 1;
        }
        if (!strcmp(name, "max_size"))
            c->max_total_size = v;
        else
            c->max_entries = v;
    } else if (!strcmp(section, "link") && !strcmp(name, "name")) {
        free(c->link_name);
        c->link_name = xstrdup(value);
    } else {
        cdm_warn(ps->ctx, "%s:%d: unknown setting '%s' in section [%s], ignored", ps->path, lineno,
                 name, section);
    }
    return 1;
}

int config_load(cdm_ctx *ctx, struct cdm_config *c, const char *explicit_path)
{
    c->max_total_size = DEFAULT_MAX_TOTAL_SIZE;
    c->max_entries = DEFAULT_MAX_ENTRIES;
    c->fetch_timeout = DEFAULT_FETCH_TIMEOUT;
    c->fetch_retries = DEFAULT_FETCH_RETRIES;
    c->fetch_retry_wait = DEFAULT_RETRY_WAIT;
    char *path = explicit_path ? xstrdup(explicit_path) : fs_default_config();
    FILE *f = fs_fopen(path, "r");
    if (!f) {
        int rc = CDM_OK;
        if (explicit_path)
            rc = cdm_error_set(ctx, CDM_ECONFIG,
                               "cannot read config '%s': no such file; create it or drop "
                               "--config/CDM_CONFIG",
                               path);
        free(path);
        return rc;
    }
    struct parse_state ps = {ctx, c, path, f, 0, 0, NULL, NULL};
    int line = ini_parse_stream(read_line, &ps, on_entry, &ps);
    fclose(f);
    int rc = CDM_OK;
    if (line > 0)
        rc = cdm_error_set(ctx, CDM_ECONFIG,
                           "cannot parse config '%s' at line %d: expected 'name = value' or "
                           "'[section]'",
                           path, line);
    else if (line < 0)
        rc = cdm_error_set(ctx, CDM_ECONFIG, "cannot read config '%s'", path);
    else if (ps.bad_value_line)
        rc = cdm_error_set(ctx, CDM_ECONFIG, "config '%s' line %d: bad value in '%s'; %s", path,
                           ps.bad_value_line, ps.bad_value, ps.bad_value_hint);
    free(ps.bad_value);
    c->path = path;
    return rc;
}

void config_free(struct cdm_config *c)
{
    free(c->path);
    free(c->root);
    free(c->link_name);
    free(c->fetch_base);
    free(c->ca_file);
    strv_free(c->sources);
    memset(c, 0, sizeof(*c));
}
