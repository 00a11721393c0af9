/* cdm's table of archives older than the manifests, with the site's own (legacy_sums.h). */
#include "legacy_sums.h"
#include "version.h"
#include "platform/fs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SUMS_FILE_MAX (1u << 20)

static int newest_first(const void *a, const void *b)
{
    const struct official_legacy *x = a, *y = b;
    struct archive_name ax, ay;
    archive_name_parse(x->name, &ax);
    archive_name_parse(y->name, &ay);
    int c = version_compare(&ay.version, &ax.version);
    return c ? c : strcmp(x->name, y->name);
}

static const struct official_legacy *in_table(const char *name)
{
    for (size_t i = 0; i < official_legacy_count; i++)
        if (!strcmp(official_legacy_archives[i].name, name))
            return &official_legacy_archives[i];
    return NULL;
}

/* One line of the site's file into l; CDM_OK for a blank or comment line. */
static int take_line(cdm_ctx *ctx, const char *path, int number, char *line, struct legacy_list *l)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (!*line || *line == '#')
        return CDM_OK;
    char *hash = line, *name = line;
    while (*name && !isspace((unsigned char)*name))
        name++;
    size_t hash_len = (size_t)(name - hash);
    while (*name == ' ' || *name == '\t')
        name++;
    if (*name == '*')
        name++;
    bool hex = hash_len == 64;
    for (size_t i = 0; hex && i < 64; i++)
        hex = isxdigit((unsigned char)hash[i]) && !isupper((unsigned char)hash[i]);
    struct archive_name an;
    if (!hex || !archive_name_parse(name, &an) || strchr(name, '/') || strchr(name, '\\'))
        return cdm_error_set(ctx, CDM_ECONFIG,
                             "[fetch] legacy_sums '%s' line %d: give a lowercase SHA-256, two "
                             "spaces and an archive's file name, as sha256sum prints them "
                             "(cudnn-11.2-windows-x64-v8.1.1.33.zip)",
                             path, number);
    hash[hash_len] = '\0';
    const struct official_legacy *known = in_table(name);
    if (known && strcmp(known->sha256, hash))
        return cdm_error_set(ctx, CDM_ECHECKSUM,
                             "[fetch] legacy_sums '%s' line %d gives '%s' the hash %s, but "
                             "NVIDIA's is %s; check the site's copy, and drop the line",
                             path, number, name, hash, known->sha256);
    if (known)
        return CDM_OK;
    struct official_legacy *item = &l->items[l->count++];
    char folder[32];
    snprintf(folder, sizeof(folder), "v%d.%d.%d", an.version.part[0], an.version.part[1],
             an.version.part[2]);
    size_t n = 0;
    while (l->owned[n])
        n++;
    l->owned[n] = xstrdup(folder);
    l->owned[n + 1] = xstrdup(name);
    l->owned[n + 2] = xstrdup(hash);
    item->folder = l->owned[n];
    item->name = l->owned[n + 1];
    item->sha256 = l->owned[n + 2];
    return CDM_OK;
}

int legacy_list_load(cdm_ctx *ctx, struct legacy_list *out)
{
    memset(out, 0, sizeof(*out));
    const char *path = ctx->config.legacy_sums;
    struct strbuf text = STRBUF_INIT;
    int rc = path ? fs_read_regular(ctx, path, SUMS_FILE_MAX, &text) : CDM_OK;
    size_t lines = 1;
    for (size_t i = 0; i < text.len; i++)
        lines += text.buf[i] == '\n';
    out->items = xcalloc(official_legacy_count + lines, sizeof(*out->items));
    out->owned = xcalloc(3 * lines + 1, sizeof(char *));
    memcpy(out->items, official_legacy_archives,
           official_legacy_count * sizeof(*official_legacy_archives));
    out->count = official_legacy_count;
    int number = 0;
    for (char *line = text.buf; !rc && line && line < text.buf + text.len;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        rc = take_line(ctx, path, ++number, line, out);
        line = end ? end + 1 : NULL;
    }
    sb_free(&text);
    if (rc) {
        legacy_list_free(out);
        return rc;
    }
    qsort(out->items, out->count, sizeof(*out->items), newest_first);
    return CDM_OK;
}

void legacy_list_free(struct legacy_list *l)
{
    free(l->items);
    strv_free(l->owned);
    memset(l, 0, sizeof(*l));
}
